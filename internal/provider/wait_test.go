package provider

import (
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

func TestQuickLookOnlyWhileRequestsAreNotPaced(t *testing.T) {
	for _, tc := range []struct {
		ceiling float64
		want    bool
	}{{0, true}, {20, false}} {
		c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1", APIKey: "test-key", RequestsPerSecond: tc.ceiling})
		if err != nil {
			t.Fatal(err)
		}
		d := &providerData{client: c, clock: clock.RealClock}
		if got := d.pollPolicy(nil).QuickLook; got != tc.want {
			t.Errorf("requests_per_second %v: QuickLook = %v, want %v", tc.ceiling, got, tc.want)
		}
	}
}
