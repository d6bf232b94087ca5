package web

import (
	"bytes"
	"encoding/xml"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// The feeds carry the FeedSize most recently updated notices, past, present
// and future. Their links are absolute, on the page's public URL, as the
// API's notice urls are.

type atomFeed struct {
	XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID       string      `xml:"id"`
	Title    string      `xml:"title"`
	Subtitle string      `xml:"subtitle"`
	Updated  string      `xml:"updated"`
	Links    []atomLink  `xml:"link"`
	Author   atomPerson  `xml:"author"`
	Entries  []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomPerson struct {
	Name string `xml:"name"`
	URI  string `xml:"uri,omitempty"`
}

type atomEntry struct {
	ID         string         `xml:"id"`
	Title      string         `xml:"title"`
	Link       atomLink       `xml:"link"`
	Published  string         `xml:"published"`
	Updated    string         `xml:"updated"`
	Categories []atomCategory `xml:"category"`
	Summary    string         `xml:"summary"`
	Content    atomText       `xml:"content"`
}

type atomCategory struct {
	Term  string `xml:"term,attr"`
	Label string `xml:"label,attr,omitempty"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

type rssFeed struct {
	XMLName xml.Name   `xml:"rss"`
	Version string     `xml:"version,attr"`
	AtomNS  string     `xml:"xmlns:atom,attr"`
	Channel rssChannel `xml:"channel"`
}

type rssChannel struct {
	Title         string    `xml:"title"`
	Link          string    `xml:"link"`
	Description   string    `xml:"description"`
	Language      string    `xml:"language"`
	LastBuildDate string    `xml:"lastBuildDate"`
	Self          atomLink  `xml:"atom:link"`
	Items         []rssItem `xml:"item"`
}

type rssItem struct {
	Title       string   `xml:"title"`
	Link        string   `xml:"link"`
	GUID        rssGUID  `xml:"guid"`
	PubDate     string   `xml:"pubDate"`
	Categories  []string `xml:"category"`
	Description string   `xml:"description"`
}

type rssGUID struct {
	IsPermaLink string `xml:"isPermaLink,attr"`
	ID          string `xml:",chardata"`
}

// feedItem is what both feeds say about a notice.
type feedItem struct {
	URL        string
	Subject    string
	Created    time.Time
	Updated    time.Time
	Categories []string
	Summary    string // plain text: the latest update
	HTML       string // every update, newest first
}

func (s *Server) feedItems(snap *snapshot.Snapshot, now time.Time) ([]feedItem, time.Time) {
	derived := s.derive(snap)
	list := derived.feed
	if len(list) > FeedSize {
		list = list[:FeedSize]
	}
	updated := snap.Doc.Page.UpdatedAt
	var items []feedItem
	for _, at := range list {
		n := derived.notice(at)
		v := s.view(snap, n, now, true)
		it := feedItem{
			URL:        snap.Entry(n, now).URL,
			Subject:    n.Subject(),
			Created:    n.CreatedAt(),
			Updated:    n.UpdatedAt(),
			Categories: []string{v.Type},
		}
		if n.Type() != statusd.General {
			it.Categories = append(it.Categories, v.State)
		}
		it.Summary = v.Type + ", " + strings.ToLower(v.State) + ": " + v.Latest.Content
		if n.Type() == statusd.General {
			it.Summary = v.Type + ": " + v.Latest.Content
		}
		var b bytes.Buffer
		if err := feedContent.Execute(&b, v); err != nil {
			s.log.Error("rendering a feed entry", "notice", n.ID, "err", err)
		}
		it.HTML = b.String()
		if n.UpdatedAt().After(updated) {
			updated = n.UpdatedAt()
		}
		items = append(items, it)
	}
	return items, updated
}

// feedContent is an entry's HTML: the schedule and every update.
var feedContent = template.Must(template.New("entry").Funcs(funcs).Parse(
	`{{if .BeginsAt}}<p>Scheduled from {{when .BeginsAt}} to {{when .EndsAt}}.</p>{{end}}` +
		`{{if .Components}}<p>Affects: {{range $i, $c := .Components}}{{if $i}}, {{end}}{{$c.Name}}{{end}}.</p>{{end}}` +
		`{{range .Updates}}<p>{{if .State}}<strong>{{.State}}</strong> — {{end}}{{.Content}} <small>({{when .CreatedAt}})</small></p>{{end}}`))

const feedTime = "2006-01-02T15:04:05.000Z"

// Atom renders the Atom feed of the notices.
func (s *Server) Atom(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	items, updated := s.feedItems(snap, now)
	root := strings.TrimRight(snap.PageURL, "/")
	name := snap.Doc.Page.Name
	f := atomFeed{
		ID:       root + "/history",
		Title:    name + ": incidents and maintenance",
		Subtitle: "Incidents, maintenance and announcements of " + name,
		Updated:  updated.UTC().Format(feedTime),
		Links: []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: root + "/history.atom"},
			{Rel: "alternate", Type: "text/html", Href: root + "/history"},
		},
		Author: atomPerson{Name: name, URI: root},
	}
	for _, it := range items {
		e := atomEntry{
			ID:        it.URL,
			Title:     it.Subject,
			Link:      atomLink{Rel: "alternate", Type: "text/html", Href: it.URL},
			Published: it.Created.UTC().Format(feedTime),
			Updated:   it.Updated.UTC().Format(feedTime),
			Summary:   it.Summary,
			Content:   atomText{Type: "html", Body: it.HTML},
		}
		for _, c := range it.Categories {
			e.Categories = append(e.Categories, atomCategory{Term: c})
		}
		f.Entries = append(f.Entries, e)
	}
	return s.writeXML(w, "application/atom+xml; charset=utf-8", f)
}

// RSS renders the RSS feed of the notices.
func (s *Server) RSS(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot, now time.Time) error {
	items, updated := s.feedItems(snap, now)
	root := strings.TrimRight(snap.PageURL, "/")
	name := snap.Doc.Page.Name
	f := rssFeed{
		Version: "2.0",
		AtomNS:  "http://www.w3.org/2005/Atom",
		Channel: rssChannel{
			Title:         name + ": incidents and maintenance",
			Link:          root + "/history",
			Description:   "Incidents, maintenance and announcements of " + name,
			Language:      "en",
			LastBuildDate: updated.UTC().Format(time.RFC1123Z),
			Self:          atomLink{Rel: "self", Type: "application/rss+xml", Href: root + "/history.rss"},
		},
	}
	for _, it := range items {
		f.Channel.Items = append(f.Channel.Items, rssItem{
			Title:       it.Subject,
			Link:        it.URL,
			GUID:        rssGUID{IsPermaLink: "true", ID: it.URL},
			PubDate:     it.Created.UTC().Format(time.RFC1123Z),
			Categories:  it.Categories,
			Description: it.HTML,
		})
	}
	return s.writeXML(w, "application/rss+xml; charset=utf-8", f)
}

func (s *Server) writeXML(w http.ResponseWriter, contentType string, v any) error {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.WriteByte('\n')
	writeBody(w, contentType, buf.Bytes())
	return nil
}
