package client_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// The budget benchmark's other scenarios, in virtual time: fifty 3-second
// exports, ten at a time, through one client with the provider's defaults.
// The bounds hold with a margin over what the budget does, and break when
// one of its rules is removed (the plateau, the release after a pause, the
// refused not counted as accepted, forgetting).

func budgetClient(t *testing.T, mock *mockapi.Server) *client.Client {
	t.Helper()
	mock.SetURL("http://api.test")
	cfg := testConfig("http://api.test")
	cfg.APIKey = mock.APIKey
	cfg.HTTPClient = &http.Client{Transport: handlerTransport{mock}}
	cfg.RequestsPerSecond, cfg.Backoff, cfg.MaxRetryAfter = 0, clock.Backoff{}, 0 // the provider's defaults
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSharedBudgetAgainstATokenBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := mockapi.NewHandler(mockapi.Config{ExportDuration: 3 * time.Second, LinkTTL: 24 * time.Hour, RateLimit: 20})
		c := budgetClient(t, mock)
		start := time.Now()
		applyExports(t, c, 50, 10)
		took := time.Since(start)
		t.Logf("%.1fs of virtual time: %d requests, %d of them 429", took.Seconds(), mock.TotalRequests(), mock.RateLimited())
		if n := mock.RateLimited(); n > 2 {
			t.Errorf("%d requests met a 429, want at most 2", n)
		}
		if took > 19500*time.Millisecond {
			t.Errorf("took %s, want at most 1.3 times the ideal 15s", took)
		}
	})
}

func TestSharedBudgetAtALowLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := mockapi.NewHandler(mockapi.Config{ExportDuration: 3 * time.Second, LinkTTL: 24 * time.Hour,
			Limits: mockapi.Limits{WindowLimit: 5, RetryAfter: mockapi.RetryAfterSeconds}})
		c := budgetClient(t, mock)
		start := time.Now()
		applyExports(t, c, 50, 10)
		took := time.Since(start)
		t.Logf("%.1fs of virtual time: %d requests, %d of them 429", took.Seconds(), mock.TotalRequests(), mock.RateLimited())
		// Each 429 pauses every caller: a handful is the price of learning
		// and probing; dozens mean a rule is missing.
		if n := mock.RateLimited(); n > 12 {
			t.Errorf("%d requests met a 429, want at most 12", n)
		}
		if took > 55*time.Second {
			t.Errorf("took %s, want at most 55s", took)
		}
	})
}

// A limit learned low is not kept for good: after a quiet spell longer than
// forgetAfter, an apply against a raised limit is as fast as the first
// against it would be.
func TestSharedBudgetForgetsALimitAfterAQuietSpell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mock := mockapi.NewHandler(mockapi.Config{ExportDuration: 3 * time.Second, LinkTTL: 24 * time.Hour,
			Limits: mockapi.Limits{WindowLimit: 5, RetryAfter: mockapi.RetryAfterSeconds}})
		c := budgetClient(t, mock)
		applyExports(t, c, 50, 10)
		time.Sleep(11 * time.Minute)
		mock.SetLimits(mockapi.Limits{WindowLimit: 20, RetryAfter: mockapi.RetryAfterSeconds})
		before := mock.RateLimited()
		start := time.Now()
		applyExports(t, c, 50, 10)
		took := time.Since(start)
		t.Logf("second apply: %.1fs of virtual time, %d 429s", took.Seconds(), mock.RateLimited()-before)
		if took > 19500*time.Millisecond {
			t.Errorf("the second apply took %s, want at most 1.3 times the ideal 15s: the low limit was kept", took)
		}
	})
}
