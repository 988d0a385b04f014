package tfrunner

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestEnvironDropsWhatWouldSteerTerraformOrTheProvider(t *testing.T) {
	env := environ([]string{
		"PATH=/usr/bin",
		"HOME=/home/dev",
		"TF_CLI_CONFIG_FILE=/home/dev/.terraformrc",
		"TF_DATA_DIR=/tmp/data",
		"TF_CLI_ARGS_apply=-parallelism=1",
		"TF_VAR_domain=docs.example.com",
		"tf_workspace=staging",
		"TERRAFORM_CONFIG=/home/dev/old.rc",
		"CHECKPOINT_DISABLE=",
		"DOCSADMIN_API_KEY=dsa_secret",
		"PLUGIN_MIN_PORT=10000",
		"GOFLAGS=-mod=mod",
		"EMPTY=",
	})
	got := slices.Sorted(maps.Keys(env))
	want := []string{"EMPTY", "GOFLAGS", "HOME", "PATH"}
	if !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	if env["GOFLAGS"] != "-mod=mod" {
		t.Errorf("GOFLAGS = %q, want the value unchanged", env["GOFLAGS"])
	}
}

func TestDevOverridesServesEveryAddress(t *testing.T) {
	inst := DevOverrides("/tmp/build dir")
	for _, addr := range Addresses {
		if want := `"` + addr + `" = "/tmp/build dir"`; !strings.Contains(inst.block, want) {
			t.Errorf("the provider_installation block has no line %s:\n%s", want, inst.block)
		}
	}
	if !strings.Contains(inst.block, "direct {}") {
		t.Errorf("other providers are not installed as usual:\n%s", inst.block)
	}
	if !strings.Contains(inst.String(), "/tmp/build dir") {
		t.Errorf("String() = %q does not name the build", inst)
	}
}

func TestCommandRunsInTheRunnersEnvironment(t *testing.T) {
	t.Setenv("TF_LOG", "TRACE")
	r, err := New(os.Args[0], t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Command(t.Context(), t.TempDir(), nil, "version"); err == nil {
		t.Fatal("Command before Install should fail")
	}
	if err := r.Install(DevOverrides(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd, err := r.Command(t.Context(), dir, map[string]string{"TF_LOG": "DEBUG"}, "apply", "-invoke=action.a.b")
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Dir != dir || !slices.Equal(cmd.Args[1:], []string{"apply", "-invoke=action.a.b"}) {
		t.Fatalf("command = %q in %s", cmd.Args, cmd.Dir)
	}
	for _, want := range []string{"TF_LOG=DEBUG", "TF_CLI_CONFIG_FILE=" + r.CLIConfig(), "CHECKPOINT_DISABLE=1"} {
		if !slices.Contains(cmd.Env, want) {
			t.Errorf("the environment lacks %s", want)
		}
	}
	if slices.Contains(cmd.Env, "TF_LOG=TRACE") {
		t.Error("the inherited TF_LOG reached the command")
	}
}
