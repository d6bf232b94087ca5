package notify

import (
	"strings"
	"unicode/utf8"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// Chat messages show the title, the state, the update's text, the
// components and the link, within each receiver's documented limits.
// Limits count characters; clip counts UTF-16 code units, which are never
// fewer, so that a text within it is within them however the receiver
// counts.

// Slack's limits (Block Kit reference: header text 150, section text
// 3000, section field 2000; a message's text is cut past 40,000 and best
// kept under 4,000).
const (
	slackHeader  = 150
	slackSection = 3000
	slackField   = 2000
	slackMessage = 4000
)

// Discord's limits (execute webhook, embed limits: content 2000, title
// 256, description 4096, field name 256 and value 1024, 6000 in all the
// embed's texts).
const (
	discordContent     = 2000
	discordTitle       = 256
	discordDescription = 4096
	discordFieldValue  = 1024
	discordTotal       = 6000
)

// teamsText bounds the card's update text: a Teams message is at most
// 28 KB, card included.
const teamsText = 20000

// clip returns s, each rune written by esc (nil: as it is), cut so that
// it takes at most max UTF-16 code units, with "…" at the end when it is
// cut. It never splits a rune, nor what esc writes for one.
func clip(s string, max int, esc func(rune) string) string {
	var b strings.Builder
	total := 0
	cut := -1 // b's length when it last had room for "…" after it
	if max >= 1 {
		cut = 0
	}
	for _, r := range s {
		out := string(r)
		if esc != nil {
			out = esc(r)
		}
		n := utf16Units(out)
		if total+n > max {
			if cut < 0 {
				return ""
			}
			return b.String()[:cut] + "…"
		}
		total += n
		if total+1 <= max {
			cut = b.Len() + len(out)
		}
		b.WriteString(out)
	}
	return b.String()
}

// utf16Len is the number of UTF-16 code units of r.
func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

// slackEscape escapes what Slack's mrkdwn reads as markup.
func slackEscape(r rune) string {
	switch r {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	}
	return string(r)
}

type slackBody struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Fields   []slackText `json:"fields,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

type slackText struct {
	Type string `json:"type"` // plain_text or mrkdwn
	Text string `json:"text"`
}

func mrkdwn(s string) slackText { return slackText{Type: "mrkdwn", Text: s} }

// slack renders m for a Slack incoming webhook: text, and Block Kit
// blocks.
func slack(m *message) ([]byte, error) {
	blocks := []slackBlock{{Type: "header", Text: &slackText{Type: "plain_text", Text: clip(m.Heading(), slackHeader, nil)}}}
	var fields []slackText
	for _, f := range m.facts() {
		fields = append(fields, mrkdwn("*"+f.Title+"*\n"+clip(f.Value, slackField-len(f.Title)-3, slackEscape)))
	}
	if len(fields) > 0 {
		blocks = append(blocks, slackBlock{Type: "section", Fields: fields})
	}
	if m.Text != "" {
		blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{Type: "mrkdwn", Text: clip(m.Text, slackSection, slackEscape)}})
	}
	footer := "<" + m.Link + "|" + clip("View on "+m.Page, 200, slackEscape) + ">"
	if !m.Posted.IsZero() {
		footer += " · Posted " + when(m.Posted)
	}
	blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{mrkdwn(footer)}})
	return httpjson.Marshal(slackBody{Text: clip(m.Title(), slackMessage, slackEscape), Blocks: blocks})
}

type discordBody struct {
	Content         string          `json:"content"`
	Embeds          []discordEmbed  `json:"embeds"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

// allowedMentions with an empty Parse pings no one, whatever the text
// says (an update's "@everyone" stays text).
type allowedMentions struct {
	Parse []string `json:"parse"`
}

type discordEmbed struct {
	Title       string         `json:"title"`
	URL         string         `json:"url"`
	Description string         `json:"description,omitempty"`
	Color       int            `json:"color"`
	Fields      []discordField `json:"fields,omitempty"`
	Timestamp   string         `json:"timestamp,omitempty"`
}

type discordField struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

// discord renders m for a Discord webhook: content, and one embed with
// the title, the link, the colour of the state and fields.
func discord(m *message) ([]byte, error) {
	e := discordEmbed{Title: clip(m.Heading(), discordTitle, nil), URL: m.Link, Color: m.Tone().RGB()}
	used := utf16Units(e.Title)
	for _, f := range m.facts() {
		df := discordField{Name: f.Title, Value: clip(f.Value, discordFieldValue, nil), Inline: true}
		used += utf16Units(df.Name) + utf16Units(df.Value)
		e.Fields = append(e.Fields, df)
	}
	e.Description = clip(m.Text, min(discordDescription, discordTotal-used), nil)
	if !m.Posted.IsZero() {
		e.Timestamp = m.Posted.UTC().Format(statusd.TimeLayout)
	}
	return httpjson.Marshal(discordBody{Content: clip(m.Title(), discordContent, nil), Embeds: []discordEmbed{e},
		AllowedMentions: allowedMentions{Parse: []string{}}})
}

func utf16Units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// teamsBody is a Microsoft Teams Workflows webhook message: one Adaptive
// Card attachment.
type teamsBody struct {
	Type        string            `json:"type"` // message
	Attachments []teamsAttachment `json:"attachments"`
}

type teamsAttachment struct {
	ContentType string    `json:"contentType"`
	ContentURL  *string   `json:"contentUrl"` // null
	Content     teamsCard `json:"content"`
}

type teamsCard struct {
	Schema  string         `json:"$schema"`
	Type    string         `json:"type"` // AdaptiveCard
	Version string         `json:"version"`
	Body    []teamsElement `json:"body"`
	Actions []teamsAction  `json:"actions"`
	MSTeams map[string]any `json:"msteams"`
}

// teamsElement is a TextBlock or a FactSet.
type teamsElement struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Weight   string `json:"weight,omitempty"`
	Size     string `json:"size,omitempty"`
	Color    string `json:"color,omitempty"`
	IsSubtle bool   `json:"isSubtle,omitempty"`
	Wrap     bool   `json:"wrap,omitempty"`
	Facts    []fact `json:"facts,omitempty"`
}

// fact is a named value of a chat message (an Adaptive Card's Fact).
type fact struct {
	Title string `json:"title"`
	Value string `json:"value"`
}

// facts are what chat messages show beside the text: the state, the
// maintenance window, the components.
func (m *message) facts() []fact {
	var out []fact
	if m.Word != "" {
		out = append(out, fact{"State", m.Word})
	}
	if s := m.Schedule(); s != "" {
		out = append(out, fact{"Scheduled", s})
	}
	if len(m.Components) > 0 {
		out = append(out, fact{"Components", strings.Join(m.Components, ", ")})
	}
	return out
}

type teamsAction struct {
	Type  string `json:"type"` // Action.OpenUrl
	Title string `json:"title"`
	URL   string `json:"url"`
}

// teamsColors are the Adaptive Card colours of the tones.
var teamsColors = [...]string{toneInfo: "Default", toneBad: "Attention", toneRecovering: "Warning", toneMaintenance: "Accent", toneGood: "Good"}

// teams renders m for a Microsoft Teams Workflows webhook: a message with
// one Adaptive Card (1.4).
func teams(m *message) ([]byte, error) {
	body := []teamsElement{
		{Type: "TextBlock", Text: clip(m.Page, 200, nil), IsSubtle: true, Size: "Small", Wrap: true},
		{Type: "TextBlock", Text: clip(m.Heading(), 500, nil), Weight: "Bolder", Size: "Medium", Color: teamsColors[m.Tone()], Wrap: true},
	}
	facts := m.facts()
	for i := range facts {
		facts[i].Value = clip(facts[i].Value, 2000, nil)
	}
	if !m.Posted.IsZero() {
		facts = append(facts, fact{"Posted", when(m.Posted)})
	}
	if len(facts) > 0 {
		body = append(body, teamsElement{Type: "FactSet", Facts: facts})
	}
	if m.Text != "" {
		body = append(body, teamsElement{Type: "TextBlock", Text: clip(m.Text, teamsText, nil), Wrap: true})
	}
	card := teamsCard{
		Schema: "http://adaptivecards.io/schemas/adaptive-card.json", Type: "AdaptiveCard", Version: "1.4",
		Body:    body,
		Actions: []teamsAction{{Type: "Action.OpenUrl", Title: clip("View on "+m.Page, 200, nil), URL: m.Link}},
		MSTeams: map[string]any{"width": "Full"},
	}
	return httpjson.Marshal(teamsBody{Type: "message", Attachments: []teamsAttachment{
		{ContentType: "application/vnd.microsoft.card.adaptive", Content: card}}})
}
