package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/devprovider"
)

const installHelp = `Terraform is required to run the demo, and was not found.
Install Terraform 1.0 or later, then run the demo again:
  - a binary from HashiCorp's releases page: https://developer.hashicorp.com/terraform/install
    (archives at https://releases.hashicorp.com/terraform/), unzipped into a directory on PATH;
  - on Debian or Ubuntu, HashiCorp's apt repository (https://apt.releases.hashicorp.com):
    see https://developer.hashicorp.com/terraform/install#linux, then: sudo apt-get install terraform;
  - or a package manager: brew install hashicorp/tap/terraform (macOS), choco install terraform (Windows).
Or point the demo at an executable with -terraform /path/to/terraform.`

// checkTerraform finds Terraform and prints its version.
func (d *demo) checkTerraform(ctx context.Context) error {
	path, err := exec.LookPath(d.opts.terraform)
	if err != nil {
		return fmt.Errorf("%q not found: %w\n\n%s", d.opts.terraform, err, installHelp)
	}
	d.terraform = path

	cmd := exec.CommandContext(ctx, path, "version", "-json")
	cmd.Env = cleanEnv(os.Environ(), "CHECKPOINT_DISABLE=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s version -json: %w\n%s", path, err, strings.TrimSpace(stderr.String()))
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Version == "" {
		return fmt.Errorf("%s version -json printed no terraform_version; is it Terraform?", path)
	}
	major, _, _ := strings.Cut(v.Version, ".")
	if n, err := strconv.Atoi(major); err != nil || n < 1 {
		return fmt.Errorf("terraform %s at %s is too old: the demo needs 1.0 or later\n\n%s", v.Version, path, installHelp)
	}
	fmt.Fprintf(d.stdout, "Terraform %s (%s)\n", v.Version, path)
	return nil
}

// buildProvider builds the provider into a new temporary directory.
func (d *demo) buildProvider(ctx context.Context) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	d.root = root
	if _, err := exec.LookPath("go"); err != nil {
		return fmt.Errorf("the go command is not on PATH (needed to build the provider): %w", err)
	}
	d.tmp, err = os.MkdirTemp("", "docsadmin-demo-")
	if err != nil {
		return fmt.Errorf("create a temporary directory: %w", err)
	}
	d.binDir = filepath.Join(d.tmp, "bin")
	d.workDir = filepath.Join(d.tmp, "work")
	for _, dir := range []string{d.binDir, d.workDir} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return err
		}
	}
	start := time.Now()
	bin, err := devprovider.Build(ctx, root, d.binDir, "demo")
	if err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "Built %s (version \"demo\") in %s\n", bin, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// moduleRoot finds the repository root from the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isModule(b) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run the demo from inside the %s repository (no go.mod for it found above the working directory)", modulePath)
		}
		dir = parent
	}
}

func isModule(goMod []byte) bool {
	for line := range strings.SplitSeq(string(goMod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == modulePath {
			return true
		}
	}
	return false
}

// prepareTerraform writes the CLI configuration, copies the example into the
// working directory and sets the environment of the terraform commands.
func (d *demo) prepareTerraform() error {
	cliConfig := filepath.Join(d.tmp, "terraform.rc")
	content := "# Installs the provider from the demo's own build; nothing is fetched.\n" + devprovider.CLIConfig(d.binDir)
	if err := os.WriteFile(cliConfig, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write the Terraform CLI configuration: %w", err)
	}

	src := filepath.Join(d.root, filepath.FromSlash(exampleDir))
	tfFiles, err := filepath.Glob(filepath.Join(src, "*.tf"))
	if err != nil || len(tfFiles) == 0 {
		return fmt.Errorf("no .tf files in %s", src)
	}
	for _, f := range tfFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d.workDir, filepath.Base(f)), b, 0o600); err != nil {
			return err
		}
	}

	d.env = cleanEnv(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"DOCSADMIN_BASE_URL="+d.mock.URL,
		"DOCSADMIN_API_KEY="+d.mock.APIKey,
	)
	fmt.Fprintf(d.stdout, "CLI config %s: dev_overrides %s = %s\n", cliConfig, providerAddr, d.binDir)
	fmt.Fprintf(d.stdout, "Copied %s/*.tf to %s; DOCSADMIN_BASE_URL=%s, DOCSADMIN_API_KEY=(mock key)\n", exampleDir, d.workDir, d.mock.URL)
	fmt.Fprintln(d.stdout, "No terraform init: dev_overrides serves the provider (Terraform warns about it below).")
	return nil
}

// cleanEnv returns base without the variables that would change what the
// terraform commands do (another CLI configuration, data directory,
// workspace, extra arguments, an attached provider, other API settings),
// followed by extra.
func cleanEnv(base []string, extra ...string) []string {
	drop := func(key string) bool {
		key = strings.ToUpper(key)
		switch key {
		case "TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG", "TF_DATA_DIR", "TF_WORKSPACE", "TF_REATTACH_PROVIDERS",
			"TF_IN_AUTOMATION", "TF_INPUT", "CHECKPOINT_DISABLE", "TF_CLI_ARGS":
			return true
		}
		return strings.HasPrefix(key, "TF_CLI_ARGS_") || strings.HasPrefix(key, "DOCSADMIN_")
	}
	var env []string
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !drop(k) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

func (d *demo) command(ctx context.Context, args ...string) *exec.Cmd {
	if !stdoutIsTerminal() && (args[0] == "apply" || args[0] == "destroy") {
		args = append(args, "-no-color")
	}
	cmd := exec.CommandContext(ctx, d.terraform, args...)
	cmd.Dir = d.workDir
	cmd.Env = d.env
	setInterruptible(cmd)
	return cmd
}

// terraformRun runs a terraform command, streaming its output or, when
// stream is false, showing it only if the command fails.
func (d *demo) terraformRun(ctx context.Context, stream bool, args ...string) error {
	cmd := d.command(ctx, args...)
	var buf bytes.Buffer
	if stream {
		cmd.Stdout, cmd.Stderr = d.stdout, d.stderr
	} else {
		cmd.Stdout, cmd.Stderr = &buf, &buf
	}
	err := cmd.Run()
	if err != nil && !stream {
		_, _ = d.stderr.Write(buf.Bytes())
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w (stopped: %v)", err, context.Cause(ctx))
	}
	return err
}

func (d *demo) destroy(ctx context.Context) error {
	if err := d.terraformRun(ctx, false, "destroy", "-auto-approve", "-input=false"); err != nil {
		return fmt.Errorf("terraform destroy: %w", err)
	}
	d.destroyed = true
	fmt.Fprintln(d.stdout, "terraform destroy: done (the export job is forgotten; the API cannot delete exports).")
	return nil
}

// outputs are the example's outputs the demo uses.
type outputs struct {
	jobID, status, expiresAt, bundleURL string
	pageCount, bundleSize               *int64
}

// readOutputs reads `terraform output -json`. The bundle link is in it
// (sensitive outputs are included) and must never be printed whole.
func (d *demo) readOutputs(ctx context.Context) (outputs, error) {
	var out outputs
	cmd := d.command(ctx, "output", "-json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("terraform output -json: %w\n%s", err, strings.TrimSpace(stderr.String()))
	}
	var all map[string]struct {
		Sensitive bool            `json:"sensitive"`
		Value     json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		return out, fmt.Errorf("terraform output -json: unreadable answer: %w", err)
	}
	var errs []error
	str := func(name string, required bool) string {
		o, ok := all[name]
		var s *string
		if ok {
			if err := json.Unmarshal(o.Value, &s); err != nil {
				errs = append(errs, fmt.Errorf("output %s is not a string", name))
				return ""
			}
		}
		if s == nil || *s == "" {
			if required {
				errs = append(errs, fmt.Errorf("output %s is missing or empty", name))
			}
			return ""
		}
		return *s
	}
	num := func(name string) *int64 {
		o, ok := all[name]
		if !ok {
			errs = append(errs, fmt.Errorf("output %s is missing", name))
			return nil
		}
		var n *json.Number
		if err := json.Unmarshal(o.Value, &n); err != nil {
			errs = append(errs, fmt.Errorf("output %s is not a number", name))
			return nil
		}
		if n == nil {
			return nil // not reported by the API
		}
		v, err := n.Int64()
		if err != nil {
			errs = append(errs, fmt.Errorf("output %s is not a whole number", name))
			return nil
		}
		return &v
	}
	out.jobID = str("job_id", true)
	out.status = str("status", true)
	out.expiresAt = str("bundle_expires_at", false)
	out.bundleURL = str("bundle_url", true)
	out.pageCount = num("page_count")
	out.bundleSize = num("bundle_size_bytes")
	if o, ok := all["bundle_url"]; ok && !o.Sensitive {
		errs = append(errs, fmt.Errorf("output bundle_url must be declared with sensitive = true in %s", exampleDir))
	}
	if len(errs) == 0 && out.status != "completed" {
		errs = append(errs, fmt.Errorf("the export's status is %q, expected completed", out.status))
	}
	return out, errors.Join(errs...)
}

func (d *demo) printSummary(o outputs) {
	w := d.stdout
	fmt.Fprintf(w, "  job id:        %s\n", o.jobID)
	fmt.Fprintf(w, "  status:        %s\n", o.status)
	if o.pageCount != nil {
		fmt.Fprintf(w, "  page count:    %d\n", *o.pageCount)
	} else {
		fmt.Fprintln(w, "  page count:    (not reported)")
	}
	if o.bundleSize != nil {
		fmt.Fprintf(w, "  bundle size:   %s\n", sizeString(*o.bundleSize))
	} else {
		fmt.Fprintln(w, "  bundle size:   (not reported)")
	}
	switch t, err := time.Parse(time.RFC3339, o.expiresAt); {
	case o.expiresAt == "":
		fmt.Fprintln(w, "  link expires:  (unknown)")
	case err != nil:
		fmt.Fprintf(w, "  link expires:  %s\n", o.expiresAt)
	default:
		fmt.Fprintf(w, "  link expires:  %s (in %s)\n", o.expiresAt, time.Until(t).Round(time.Second))
	}
	fmt.Fprintf(w, "  bundle link:   %s\n", redactLink(o.bundleURL))
	fmt.Fprintln(w, "                 (a sensitive output: the signature is redacted here; run with -keep to read it with terraform output -raw bundle_url)")
	fmt.Fprintf(w, "Mock API: %d export(s) started for %s, %d bundle link(s) generated for %s.\n",
		d.mock.ExportsStarted(demoDomain), demoDomain, d.mock.BundlesGenerated(o.jobID), o.jobID)
}

// redactLink shows a link without its signing parameters. If redaction
// somehow left a signature value in place, the query is dropped whole.
func redactLink(link string) string {
	r := bundlelink.Redact(link)
	for _, sig := range bundlelink.Signature(link) {
		if sig != "" && strings.Contains(r, sig) {
			base, _, _ := strings.Cut(r, "?")
			return base + "?(query hidden)"
		}
	}
	return r
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
