package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aot-loop/aot-tui/internal/jsonstream"
)

// webhookSink POSTs each event to a URL, once: no retries.
type webhookSink struct {
	w       *Webhook
	format  string
	timeout time.Duration
	client  *http.Client
}

func newWebhookSink(w *Webhook, timeout time.Duration) *webhookSink {
	return &webhookSink{w: w, format: w.FormatFor(), timeout: timeout, client: &http.Client{Timeout: timeout}}
}

func (s *webhookSink) name() string { return "webhook " + s.w.Where() + " (" + s.format + ")" }

// ntfyTags and ntfyHigh: how an ntfy notification looks per kind (tags
// that ntfy shows as emoji; the kinds that wait for a person are urgent).
var ntfyTags = map[Kind]string{
	NeedsAttention: "warning", NeedsYou: "raising_hand", Completed: "white_check_mark",
	Stopped: "stop_sign", CorrectionLost: "x", Test: "test_tube",
}

// request builds the POST for ev in the sink's format.
func (s *webhookSink) request(ctx context.Context, ev Event, version string) (*http.Request, error) {
	var body []byte
	header := http.Header{}
	switch s.format {
	case FormatNtfy:
		body = []byte(ev.Text())
		header.Set("Content-Type", "text/plain; charset=utf-8")
		header.Set("Title", mime.BEncoding.Encode("utf-8", ev.Title()))
		if t := ntfyTags[ev.Kind]; t != "" {
			header.Set("Tags", t)
		}
		if ev.Kind == NeedsYou || ev.Kind == CorrectionLost {
			header.Set("Priority", "high")
		}
	case FormatSlack:
		// Slack reads <…> as links and mentions (<!channel>): a loop
		// name must not ping a channel.
		text := slackEscape.Replace(ev.Title() + ": " + ev.Reason)
		var err error
		if body, err = jsonstream.Marshal(map[string]string{"text": text}); err != nil {
			return nil, err
		}
		header.Set("Content-Type", "application/json")
	default:
		body = ev.JSON()
		header.Set("Content-Type", "application/json")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.w.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	for k, v := range s.w.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "aot-tui/"+version)
	return req, nil
}

var slackEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// deliver POSTs ev once, within the timeout, and reads at most 64 KiB of
// the answer.
func (s *webhookSink) deliver(ctx context.Context, ev Event) (string, error) {
	req, err := s.request(ctx, ev, ev.Version)
	if err != nil {
		return "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// url.Error quotes the whole URL, and a webhook's path is its
		// secret: say only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			if ue.Timeout() {
				return "", fmt.Errorf("no answer within %v (notify.timeout)", s.timeout)
			}
			err = ue.Err
		}
		return "", err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	what := resp.Status
	if what == "" {
		what = fmt.Sprint(resp.StatusCode)
	}
	what = "HTTP " + strings.TrimPrefix(what, "HTTP ")
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if line := firstLine(string(answer)); line != "" {
			what += ": " + line
		}
		return "", errors.New(what)
	}
	return what, nil
}
