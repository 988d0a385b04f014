package tfrunner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// ModulePath is the Go module of the provider.
const ModulePath = "github.com/docsadmin/terraform-provider-docsadmin"

// Addresses are the provider's addresses for the source "docsadmin/docsadmin":
// Terraform implies one registry host, OpenTofu another.
var Addresses = []string{
	"registry.terraform.io/docsadmin/docsadmin",
	"registry.opentofu.org/docsadmin/docsadmin",
}

// waitDelay is how long a cancelled command may take to exit after its
// interrupt before it is killed.
const waitDelay = 30 * time.Second

// ModuleRoot finds the provider's repository root (its go.mod) at or above
// the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && declaresModule(b) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run from inside the %s repository (no go.mod for it found above the working directory)", ModulePath)
		}
		dir = parent
	}
}

func declaresModule(goMod []byte) bool {
	for line := range strings.SplitSeq(string(goMod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == ModulePath {
			return true
		}
	}
	return false
}

// Installation is how Terraform finds the provider: the provider_installation
// block of the runner's CLI configuration.
type Installation struct {
	block   string
	summary string
	version string   // the version a filesystem mirror holds; "" for dev_overrides
	mirror  string   // the filesystem mirror's directory; "" for dev_overrides
	hashes  []string // zh: checksums of the version's release archives
}

// String says in one line where the provider comes from.
func (i Installation) String() string { return i.summary }

// Version is the provider version a filesystem mirror installation holds,
// "" for dev_overrides (which serve whatever was built).
func (i Installation) Version() string { return i.version }

// Hashes are the "zh:" checksums of the release archives of the version a
// filesystem mirror installation holds.
func (i Installation) Hashes() []string { return slices.Clone(i.hashes) }

// MirrorDir is the directory of a filesystem mirror installation, "" for
// dev_overrides.
func (i Installation) MirrorDir() string { return i.mirror }

// DevOverrides serves the provider binary in dir for every address of the
// provider and installs anything else as usual. No terraform init is needed
// (Terraform warns that the override is in effect).
func DevOverrides(dir string) Installation {
	var overrides strings.Builder
	for _, addr := range Addresses {
		fmt.Fprintf(&overrides, "    %q = %s\n", addr, strconv.Quote(filepath.ToSlash(dir)))
	}
	return Installation{
		block:   "provider_installation {\n  dev_overrides {\n" + overrides.String() + "  }\n  direct {}\n}\n",
		summary: fmt.Sprintf("dev_overrides %s = %s", Addresses[0], dir),
	}
}

// Runner runs one Terraform executable with one CLI configuration.
type Runner struct {
	terraform string // resolved executable
	home      string // the provider build (bin/, or build/ and mirror/), dist/ and terraform.rc live here
	cliConfig string // set by Install
	inst      Installation
}

// New finds terraform (a name looked up on PATH, or a path) and returns a
// runner that keeps its files in home, an existing directory.
func New(terraform, home string) (*Runner, error) {
	path, err := exec.LookPath(terraform)
	if err != nil {
		return nil, fmt.Errorf("%q not found: %w", terraform, err)
	}
	return &Runner{terraform: path, home: home}, nil
}

// WithTerraform returns a runner of another Terraform executable (a name on
// PATH or a path) that shares this runner's provider build and CLI
// configuration, for the few commands a newer Terraform must run.
func (r *Runner) WithTerraform(terraform string) (*Runner, error) {
	other, err := New(terraform, r.home)
	if err != nil {
		return nil, err
	}
	other.cliConfig = r.cliConfig
	return other, nil
}

// Path is the Terraform executable.
func (r *Runner) Path() string { return r.terraform }

// Version asks Terraform for its version.
func (r *Runner) Version(ctx context.Context) (string, error) {
	tf, err := r.workdir(r.home, nil)
	if err != nil {
		return "", err
	}
	v, _, err := tf.Version(ctx, true)
	if err != nil {
		return "", fmt.Errorf("%s version: %w", r.terraform, err)
	}
	return v.String(), nil
}

// BuildProvider compiles the provider, reporting version, into home/bin and
// returns the installation that serves that build.
func (r *Runner) BuildProvider(ctx context.Context, version string) (Installation, error) {
	root, err := ModuleRoot()
	if err != nil {
		return Installation{}, err
	}
	if _, err := exec.LookPath("go"); err != nil {
		return Installation{}, fmt.Errorf("the go command is not on PATH (needed to build the provider): %w", err)
	}
	dir := filepath.Join(r.home, "bin")
	bin := filepath.Join(dir, "terraform-provider-docsadmin")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags", "-X main.version="+version, "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return Installation{}, fmt.Errorf("go build of the provider: %w\n%s", err, out)
	}
	return DevOverrides(dir), nil
}

// InstallHelp says how to get Terraform, for a tool that did not find it.
const InstallHelp = `Terraform 1.0 or later is required, and was not found. Install it, then run again:
  - a binary from HashiCorp's releases page: https://developer.hashicorp.com/terraform/install
    (archives at https://releases.hashicorp.com/terraform/), unzipped into a directory on PATH;
  - on Debian or Ubuntu, HashiCorp's apt repository (https://apt.releases.hashicorp.com):
    see https://developer.hashicorp.com/terraform/install#linux, then: sudo apt-get install terraform;
  - or a package manager: brew install hashicorp/tap/terraform (macOS), choco install terraform (Windows).
Or point at an executable with -terraform /path/to/terraform.`

// Setup finds terraform (see New) and checks that it is 1.0 or later, the
// first to speak the provider's protocol, then builds the provider reporting
// version into home/bin (see BuildProvider) and installs that build through
// dev_overrides (see Install). It returns Terraform's version.
func Setup(ctx context.Context, terraform, home, version string) (*Runner, string, error) {
	return setup(ctx, terraform, home, version, (*Runner).BuildProvider)
}

// SetupMirror is Setup with the build packed into a filesystem mirror in
// home (see BuildMirror), installed with terraform init as a user installs a
// release (see Init).
func SetupMirror(ctx context.Context, terraform, home, version string) (*Runner, string, error) {
	return setup(ctx, terraform, home, version, (*Runner).BuildMirror)
}

func setup(ctx context.Context, terraform, home, version string, build func(*Runner, context.Context, string) (Installation, error)) (*Runner, string, error) {
	r, err := New(terraform, home)
	if err != nil {
		return nil, "", fmt.Errorf("%w\n\n%s", err, InstallHelp)
	}
	v, err := r.Version(ctx)
	switch {
	case err != nil:
		return nil, "", fmt.Errorf("%w\nIs %s Terraform?", err, r.Path())
	case strings.HasPrefix(v, "0."):
		return nil, "", fmt.Errorf("terraform %s at %s is too old\n\n%s", v, r.Path(), InstallHelp)
	}
	inst, err := build(r, ctx, version)
	if err == nil {
		err = r.Install(inst)
	}
	return r, v, err
}

// Install writes the CLI configuration, home/terraform.rc, that installs the
// provider as inst for every later command.
func (r *Runner) Install(inst Installation) error {
	path := filepath.Join(r.home, "terraform.rc")
	content := "# Installs this provider from a local build; nothing is fetched for it.\n" + inst.block
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("write the Terraform CLI configuration: %w", err)
	}
	r.cliConfig = path
	r.inst = inst
	return nil
}

// CLIConfig is the path of the CLI configuration Install wrote.
func (r *Runner) CLIConfig() string { return r.cliConfig }

// Workdir returns Terraform in dir, installing the provider as Install said,
// with the environment env added (the provider's settings, for example).
func (r *Runner) Workdir(dir string, env map[string]string) (*tfexec.Terraform, error) {
	if r.cliConfig == "" {
		return nil, errors.New("tfrunner: Install the provider before running Terraform")
	}
	return r.workdir(dir, env)
}

// Module creates the directory dir holding files (name: content) and
// returns Terraform there, as Workdir does.
func (r *Runner) Module(dir string, files map[string][]byte, env map[string]string) (*tfexec.Terraform, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o600); err != nil {
			return nil, err
		}
	}
	return r.Workdir(dir, env)
}

// ModuleFiles reads the .tf files of dir, a directory of the repository
// named relative to its root (ModuleRoot), such as "examples/demo".
func ModuleFiles(dir string) (map[string][]byte, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	paths, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.tf")) // a valid pattern: no error
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .tf files in %s", dir)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		if files[filepath.Base(p)], err = os.ReadFile(p); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// Outputs decodes the values of `terraform output -json` into dst, a
// pointer to a struct whose json tags name the outputs, and returns the
// outputs' metadata (sensitive or not) too.
func Outputs(ctx context.Context, tf *tfexec.Terraform, dst any) (map[string]tfexec.OutputMeta, error) {
	all, err := tf.Output(ctx)
	if err != nil {
		return nil, fmt.Errorf("terraform output: %w", err)
	}
	values := map[string]json.RawMessage{}
	for name, o := range all {
		values[name] = o.Value
	}
	raw, _ := json.Marshal(values) // raw JSON values: no error
	if err := json.Unmarshal(raw, dst); err != nil {
		return nil, fmt.Errorf("terraform output: unexpected types: %w", err)
	}
	return all, nil
}

func (r *Runner) workdir(dir string, extra map[string]string) (*tfexec.Terraform, error) {
	tf, err := tfexec.NewTerraform(dir, r.terraform)
	if err != nil {
		return nil, err
	}
	if err := tf.SetEnv(r.env(extra)); err != nil {
		return nil, err
	}
	if err := tf.SetWaitDelay(waitDelay); err != nil {
		return nil, err
	}
	return tf, nil
}

// env is the environment of every command: the inherited one without what
// steers Terraform, the runner's CLI configuration, then extra.
func (r *Runner) env(extra map[string]string) map[string]string {
	env := environ(os.Environ())
	env["CHECKPOINT_DISABLE"] = "1"
	if r.cliConfig != "" {
		env["TF_CLI_CONFIG_FILE"] = r.cliConfig
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// Command runs Terraform in dir with args as they are, in the environment
// Workdir gives (extra may set TF_LOG and TF_LOG_PATH, which terraform-exec
// reserves), for what terraform-exec has no option for, such as
// `apply -invoke=<action>`. Cancelling ctx sends one interrupt, as for
// Workdir's commands.
func (r *Runner) Command(ctx context.Context, dir string, extra map[string]string, args ...string) (*exec.Cmd, error) {
	if r.cliConfig == "" {
		return nil, errors.New("tfrunner: Install the provider before running Terraform")
	}
	cmd := exec.CommandContext(ctx, r.terraform, args...)
	cmd.Dir = dir
	for k, v := range r.env(extra) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = waitDelay
	return cmd, nil
}

// environ is base (KEY=value entries) without the variables that would make
// Terraform or the provider do something else than the runner says: any
// Terraform setting (TF_*, TERRAFORM_CONFIG, CHECKPOINT_*), any of the
// provider's (DOCSADMIN_*) and go-plugin's (PLUGIN_*).
func environ(base []string) map[string]string {
	env := make(map[string]string, len(base))
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		if !steers(k) {
			env[k] = v
		}
	}
	return env
}

func steers(key string) bool {
	key = strings.ToUpper(key)
	for _, prefix := range []string{"TF_", "CHECKPOINT_", "DOCSADMIN_", "PLUGIN_"} {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return key == "TERRAFORM_CONFIG"
}

// Transcript collects what Terraform prints on both of its streams, which
// terraform-exec copies from two goroutines.
type Transcript struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Record sends both of tf's output streams into a new transcript.
func Record(tf *tfexec.Terraform) *Transcript {
	t := &Transcript{}
	tf.SetStdout(t)
	tf.SetStderr(t)
	return t
}

func (t *Transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.Write(p)
}

// String is what Terraform printed, with the signatures of presigned links
// masked: a transcript is shown in test logs, and a plan's JSON carries
// sensitive values in the clear.
func (t *Transcript) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bundlelink.SignatureInText.ReplaceAllStringFunc(t.buf.String(), func(param string) string {
		name, _, _ := strings.Cut(param, "=")
		return name + "=REDACTED"
	})
}
