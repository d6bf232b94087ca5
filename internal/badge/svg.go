package badge

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"unicode/utf8"
)

// svgColors are the fills of the message half: darker than shields.io's
// named colours, so that white 11px text on them keeps a contrast of at
// least 4.5:1 (WCAG AA).
var svgColors = map[string]string{
	ColorOperational: "#2b7a0b",
	ColorDegraded:    "#b04a00",
	ColorMaintenance: "#0b5fa5",
	ColorUnknown:     "#5f5f5f",
}

// labelColor is the fill of the label half.
const labelColor = "#444"

// textWidth estimates the width in pixels of s in 11px Verdana, the badge
// font, from the widths of classes of characters; wide enough that the text
// never overflows its box.
func textWidth(s string) int {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ':
			w += 3.9
		case r == 'i' || r == 'l' || r == 'j' || r == '.' || r == ',' || r == ':' || r == ';' || r == '!' || r == '|' || r == '\'':
			w += 3.5
		case r == 'f' || r == 't' || r == 'r' || r == 'I' || r == '(' || r == ')' || r == '-':
			w += 4.9
		case r == 'm' || r == 'w':
			w += 10.7
		case r == 'M' || r == 'W':
			w += 11.5
		case r >= 'A' && r <= 'Z':
			w += 7.9
		case r < utf8.RuneSelf:
			w += 6.9
		default:
			w += 10 // CJK and other wide scripts: err on the wide side
		}
	}
	return int(w + 0.999)
}

// SVG draws a flat badge: the label on grey on the left, the message on the
// state's colour on the right. Text is XML-escaped; the badge has role img,
// an aria-label and a title that say "label: message".
func SVG(b Badge) []byte {
	fill, ok := svgColors[b.Color]
	if !ok {
		fill = svgColors[ColorUnknown]
	}
	const pad = 10 // on each side of a text
	lw := textWidth(b.Label) + 2*pad
	mw := textWidth(b.Message) + 2*pad
	total := lw + mw
	title := b.Label + ": " + b.Message
	itoa := strconv.Itoa
	half := func(x, w int) string { return strconv.FormatFloat(float64(x)+float64(w)/2, 'f', 1, 64) }

	var buf bytes.Buffer
	buf.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + itoa(total) + `" height="20" role="img" aria-label="`)
	escape(&buf, title)
	buf.WriteString(`"><title>`)
	escape(&buf, title)
	buf.WriteString(`</title>`)
	buf.WriteString(`<linearGradient id="shine" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	buf.WriteString(`<clipPath id="round"><rect width="` + itoa(total) + `" height="20" rx="3" fill="#fff"/></clipPath>`)
	buf.WriteString(`<g clip-path="url(#round)">`)
	buf.WriteString(`<rect width="` + itoa(lw) + `" height="20" fill="` + labelColor + `"/>`)
	buf.WriteString(`<rect x="` + itoa(lw) + `" width="` + itoa(mw) + `" height="20" fill="` + fill + `"/>`)
	buf.WriteString(`<rect width="` + itoa(total) + `" height="20" fill="url(#shine)"/>`)
	buf.WriteString(`</g>`)
	buf.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`)
	for _, t := range []struct {
		x, w int
		s    string
	}{{0, lw, b.Label}, {lw, mw, b.Message}} {
		// A faint shadow one pixel below, then the text.
		buf.WriteString(`<text x="` + half(t.x, t.w) + `" y="15" fill="#010101" fill-opacity=".3" aria-hidden="true">`)
		escape(&buf, t.s)
		buf.WriteString(`</text><text x="` + half(t.x, t.w) + `" y="14">`)
		escape(&buf, t.s)
		buf.WriteString(`</text>`)
	}
	buf.WriteString(`</g></svg>`)
	return buf.Bytes()
}

func escape(buf *bytes.Buffer, s string) {
	xml.EscapeText(buf, []byte(s))
}
