package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// handlerTransport serves each request with a handler in the same process,
// so that in a synctest bubble the mock and the client share virtual time.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// applyExports makes the requests `terraform apply -parallelism=parallelism`
// of n docsadmin_static_export resources makes, through one shared client:
// each export is started, awaited with the provider's policy (a quick look
// only while requests are not paced) and linked.
func applyExports(t *testing.T, c *client.Client, n, parallelism int) {
	ctx := context.Background()
	observe := func(j *client.StaticExportJob) poll.Observation {
		return poll.Observation{Status: string(j.Status), Final: j.Status.Final(), Progress: j.Progress}
	}
	slots := make(chan struct{}, parallelism)
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			job, err := c.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: fmt.Sprintf("site%d.example.com", i)})
			if err != nil {
				t.Error(err)
				return
			}
			policy := poll.Policy{KnownStatuses: client.KnownExportStatuses, QuickLook: !c.Paced()}
			if _, err := poll.UntilFrom(ctx, policy, observe(job), func(ctx context.Context) (poll.Observation, error) {
				j, err := c.GetStaticExport(ctx, job.JobID)
				if err != nil {
					return poll.Observation{}, err
				}
				return observe(j), nil
			}); err != nil {
				t.Error(err)
				return
			}
			if _, err := c.CreateStaticExportLink(ctx, job.JobID); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// Fifty 3-second exports, ten at a time, share one budget against an API that
// accepts 20 requests in any sliding second: whatever the form of its
// Retry-After, the budget learns the limit from one 429 (two where a request
// of the same second is refused with it) and keeps under it, without a storm
// of retries when the pause ends; every export is started once and linked
// (applyExports fails the test otherwise).
func TestSharedBudgetLearnsASlidingWindow(t *testing.T) {
	for _, form := range []mockapi.RetryAfterForm{mockapi.RetryAfterSeconds, mockapi.RetryAfterDate, mockapi.RetryAfterAbsent} {
		t.Run(form.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const n, parallelism = 50, 10
				mock := mockapi.NewHandler(mockapi.Config{ExportDuration: 3 * time.Second, LinkTTL: 24 * time.Hour,
					Limits: mockapi.Limits{WindowLimit: 20, RetryAfter: form}})
				mock.SetURL("http://api.test")
				cfg := testConfig("http://api.test")
				cfg.APIKey = mock.APIKey
				cfg.HTTPClient = &http.Client{Transport: handlerTransport{mock}}
				cfg.RequestsPerSecond, cfg.Backoff, cfg.MaxRetryAfter = 0, clock.Backoff{}, 0 // the provider's defaults
				c, err := client.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				applyExports(t, c, n, parallelism)
				took := time.Since(start)

				total, limited := mock.TotalRequests(), mock.RateLimited()
				t.Logf("%d exports in %.1fs of virtual time: %d requests, %d of them 429", n, took.Seconds(), total, limited)
				if limited > 2 {
					t.Errorf("%d requests met a 429, want at most 2: the budget did not keep under the limit it learned", limited)
				}
				if !c.Paced() {
					t.Error("requests are not paced after a 429")
				}
				for i := range n {
					domain := fmt.Sprintf("site%d.example.com", i)
					if got := mock.ExportsStarted(domain); got != 1 {
						t.Errorf("%s: started %d times, want once", domain, got)
					}
				}
			})
		})
	}
}
