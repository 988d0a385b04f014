package tfrunner

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
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

func TestFilesystemMirrorInstallsEveryAddressFromTheMirrorOnly(t *testing.T) {
	inst := FilesystemMirror("/tmp/the mirror", "0.0.1-dev-abc1234", []string{"zh:aa11"})
	list := `["registry.terraform.io/docsadmin/docsadmin", "registry.opentofu.org/docsadmin/docsadmin"]`
	for _, want := range []string{
		"filesystem_mirror {\n    path    = \"/tmp/the mirror\"\n    include = " + list + "\n  }",
		"direct {\n    exclude = " + list + "\n  }",
	} {
		if !strings.Contains(inst.block, want) {
			t.Errorf("the provider_installation block lacks\n%s\nit is:\n%s", want, inst.block)
		}
	}
	if inst.Version() != "0.0.1-dev-abc1234" {
		t.Errorf("Version() = %q", inst.Version())
	}
	if inst.MirrorDir() != "/tmp/the mirror" {
		t.Errorf("MirrorDir() = %q", inst.MirrorDir())
	}
	if got := inst.Hashes(); !slices.Equal(got, []string{"zh:aa11"}) {
		t.Errorf("Hashes() = %q", got)
	}
	if DevOverrides("/tmp").Version() != "" {
		t.Error("a dev_overrides installation claims a version")
	}
}

// The names the mirror's layout uses are the ones .goreleaser.yml gives the
// release: this test reads the templates they follow.
func TestArchiveNamesFollowTheReleaseConfiguration(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}
	config := string(b)
	for _, line := range []string{
		"project_name: " + ProjectName,
		`    binary: "{{ .ProjectName }}_v{{ .Version }}"`,
		`    name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"`,
		"  - formats: [zip]",
	} {
		if !strings.Contains(config, "\n"+line+"\n") {
			t.Errorf(".goreleaser.yml no longer has the line %q that ArchiveName and BinaryName follow", line)
		}
	}
	if got, want := ArchiveName("1.2.3", "linux", "amd64"), "terraform-provider-docsadmin_1.2.3_linux_amd64.zip"; got != want {
		t.Errorf("ArchiveName = %q, want %q", got, want)
	}
	if got, want := BinaryName("1.2.3", "windows"), "terraform-provider-docsadmin_v1.2.3.exe"; got != want {
		t.Errorf("BinaryName = %q, want %q", got, want)
	}
	got := filepath.ToSlash(MirrorArchivePath("/m", Addresses[1], "1.2.3", "darwin", "arm64"))
	if want := "/m/registry.opentofu.org/docsadmin/docsadmin/terraform-provider-docsadmin_1.2.3_darwin_arm64.zip"; got != want {
		t.Errorf("MirrorArchivePath = %q, want %q", got, want)
	}
}

func TestPackArchiveHoldsTheExecutableAndTheDocumentsAtItsRoot(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{"README.md": "read me", "CHANGELOG.md": "changes", "DESIGN.md": "not packed"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(t.TempDir(), BinaryName("1.2.3", "linux"))
	if err := os.WriteFile(bin, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	archive, err := packArchive(root, bin)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range zr.File {
		got = append(got, fmt.Sprintf("%s %v", f.Name, f.Mode()))
	}
	want := []string{"CHANGELOG.md -rw-r--r--", "README.md -rw-r--r--", "terraform-provider-docsadmin_v1.2.3 -rwxr-xr-x"}
	if !slices.Equal(got, want) {
		t.Errorf("archive holds %q, want %q", got, want)
	}
}

func TestLockChecksumsReadsTheArchivesOfTheVersion(t *testing.T) {
	sums := filepath.Join(t.TempDir(), "SHA256SUMS")
	content := "aa11  terraform-provider-docsadmin_0.0.1-dev-x_linux_amd64.zip\n" +
		"bb22  terraform-provider-docsadmin_0.0.1-dev-x_manifest.json\n" +
		"cc33 *terraform-provider-docsadmin_0.0.1-dev-x_darwin_arm64.zip\n" +
		"dd44  terraform-provider-docsadmin_0.0.2_linux_amd64.zip\n"
	if err := os.WriteFile(sums, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LockChecksums(sums, "0.0.1-dev-x")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"zh:aa11", "zh:cc33"}; !slices.Equal(got, want) {
		t.Errorf("LockChecksums = %q, want %q", got, want)
	}
	if _, err := LockChecksums(sums, "9.9.9"); err == nil {
		t.Error("no error for a version the file does not list")
	}
}

func TestPinVersionAsksForExactlyTheMirroredVersion(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{inst: DevOverrides("/tmp")}
	if err := r.PinVersion(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, VersionOverrideFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dev_overrides: an override file was written (%v)", err)
	}
	r.inst = FilesystemMirror("/tmp/mirror", "0.0.1-dev-abc1234", nil)
	if err := r.PinVersion(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, VersionOverrideFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := `version = "0.0.1-dev-abc1234"`; !strings.Contains(string(b), want) {
		t.Errorf("the override file does not say %s:\n%s", want, b)
	}
}

func TestLockFileRecordsTheExactVersionAndItsChecksums(t *testing.T) {
	got := LockFile(Addresses[1], "0.0.1-dev-x", []string{"zh:aa11", "zh:cc33"})
	want := `provider "registry.opentofu.org/docsadmin/docsadmin" {
  version     = "0.0.1-dev-x"
  constraints = "0.0.1-dev-x"
  hashes = [
    "zh:aa11",
    "zh:cc33",
  ]
}
`
	if got != want {
		t.Errorf("LockFile =\n%s\nwant\n%s", got, want)
	}
}
