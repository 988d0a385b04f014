package client_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

type abScenario struct {
	name        string
	n           int
	cfg         mockapi.Config
	raiseAfter  time.Duration
	raiseLimits mockapi.Limits
}

func TestAblation(t *testing.T) {
	if os.Getenv("ABLATION") == "" {
		return
	}
	job := 3 * time.Second
	scen := []abScenario{
		{name: "window-s", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterSeconds}}},
		{name: "window-d", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterDate}}},
		{name: "window-a", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterAbsent}}},
		{name: "bucket", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, RateLimit: 20}},
		{name: "limit5", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 5, RetryAfter: mockapi.RetryAfterSeconds}}},
		{name: "raised10to20", n: 200, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 10, RetryAfter: mockapi.RetryAfterSeconds}},
			raiseAfter: 20 * time.Second, raiseLimits: mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterSeconds}},
		{name: "window-s-20ms", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterSeconds, Latency: 20 * time.Millisecond}}},
		{name: "limit5-20ms", n: 50, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 5, RetryAfter: mockapi.RetryAfterSeconds, Latency: 20 * time.Millisecond}}},
		{name: "window-s-200", n: 200, cfg: mockapi.Config{ExportDuration: job, LinkTTL: 24 * time.Hour, Limits: mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterSeconds}}},
	}
	variants := []struct {
		name string
		set  func(bool)
	}{
		{"all kept", func(bool) {}},
		{"plateau", func(v bool) { client.Ablate.Plateau = v }},
		{"probe", func(v bool) { client.Ablate.Probe = v }},
		{"holdDoubling", func(v bool) { client.Ablate.HoldDoubling = v }},
		{"limitStands", func(v bool) { client.Ablate.LimitStands = v }},
		{"late429", func(v bool) { client.Ablate.Late429 = v }},
		{"forget", func(v bool) { client.Ablate.Forget = v }},
		{"fractional", func(v bool) { client.Ablate.Fractional = v }},
		{"gradual", func(v bool) { client.Ablate.Gradual = v }},
		{"skew", func(v bool) { client.Ablate.Skew = v }},
		{"jitter", func(v bool) { client.Ablate.Jitter = v }},
		{"refusedUncounted", func(v bool) { client.Ablate.RefusedUncounted = v }},
		{"needCap", func(v bool) { client.Ablate.NeedCap = v }},
		{"held", func(v bool) { client.Ablate.Held = v }},
		{"countOnce", func(v bool) { client.Ablate.CountOnce = v }},
	}
	only := os.Getenv("ABLATION")
	var out strings.Builder
	fmt.Fprintf(&out, "%-18s", "removed")
	for _, s := range scen {
		fmt.Fprintf(&out, " | %-20s", s.name)
	}
	out.WriteString("\n")
	for _, v := range variants {
		if only != "all" && !strings.Contains(","+only+",", ","+v.name+",") && v.name != "all kept" {
			continue
		}
		v.set(true)
		fmt.Fprintf(&out, "%-18s", v.name)
		for _, s := range scen {
			var cell string
			synctest.Test(t, func(t *testing.T) {
				mock := mockapi.NewHandler(s.cfg)
				mock.SetURL("http://api.test")
				cfg := testConfig("http://api.test")
				cfg.APIKey = mock.APIKey
				cfg.HTTPClient = &http.Client{Transport: handlerTransport{mock}}
				cfg.RequestsPerSecond, cfg.Backoff, cfg.MaxRetryAfter = 0, poll.Backoff{}, 0
				c, err := client.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if s.raiseAfter > 0 {
					go func() { time.Sleep(s.raiseAfter); mock.SetLimits(s.raiseLimits) }()
				}
				start := time.Now()
				applyExports(t, c, s.n, 10)
				took := time.Since(start)
				cell = fmt.Sprintf("%5.1fs %3d %4d", took.Seconds(), mock.RateLimited(), mock.TotalRequests())
			})
			fmt.Fprintf(&out, " | %-20s", cell)
		}
		out.WriteString("\n")
		v.set(false)
	}
	t.Log("\n" + out.String())
}
