package client_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// rawServer answers every request on loopback with the bytes of answer,
// whatever HTTP would allow, and closes the connection.
func rawServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				_, _ = conn.Write([]byte(answer))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// noSecret fails when text holds the key or its secret part, in any case.
func noSecret(t *testing.T, what, text, key string) {
	t.Helper()
	_, part, _ := strings.Cut(key, "_")
	lowered := strings.ToLower(text)
	if strings.Contains(lowered, strings.ToLower(key)) || strings.Contains(lowered, strings.ToLower(part)) {
		t.Errorf("%s shows the API key: %s", what, text)
	}
	if !strings.Contains(text, redact.KeyMarker) {
		t.Errorf("%s does not say what was hidden: %s", what, text)
	}
}

// TestTransportErrorsAreSanitized: a server whose status line quotes the
// API key fails the call with an error, and a retry reason, without it.
func TestTransportErrorsAreSanitized(t *testing.T) {
	base := rawServer(t, "HTTP/1.1 "+testAPIKey+" OK\r\nContent-Length: 0\r\n\r\n")
	cfg := testConfig(base)
	cfg.MaxRetries = new(0)
	c := newClient(t, cfg)
	_, err := c.GetStaticExport(t.Context(), "se_1")
	if err == nil {
		t.Fatal("a malformed status line was accepted")
	}
	if reqErr := asRequestError(t, err); !reqErr.MaybeProcessed {
		t.Errorf("the request was answered, yet said not sent: %v", err)
	}
	noSecret(t, "the error", err.Error(), testAPIKey)
	noSecret(t, "the failure's reason", client.Classify(err).Reason, testAPIKey)
}

// TestRedirectTargetIsSanitized: a redirect to a host made of the key's
// secret part, in the key's own mixed case, is refused with an error that
// hides it, although the target's host is shown lowered.
func TestRedirectTargetIsSanitized(t *testing.T) {
	const key = "dsa_Live_5F0c1E2d3B4a69788796A5b4"
	_, part, _ := strings.Cut(key, "_")
	srv := cannedServer(t, http.StatusFound, map[string]string{"Location": "https://" + part + ".evil.example/x"}, "")
	cfg := testConfig(srv.URL)
	cfg.APIKey = key
	c := newClient(t, cfg)
	_, err := c.GetStaticExport(t.Context(), "se_1")
	if client.Classify(err).Kind != client.KindRedirected {
		t.Fatalf("err = %v, want a refused redirect", err)
	}
	noSecret(t, "the error", err.Error(), key)
	noSecret(t, "the failure's reason", client.Classify(err).Reason, key)
}
