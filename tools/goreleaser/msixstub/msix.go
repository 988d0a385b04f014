// Package msix stands in for go.digitalxero.dev/go-msix, which goreleaser
// requires (through nfpm's MSIX packager) but which the Go module proxy
// does not serve. tools/goreleaser/go.mod replaces the module with this
// directory so that goreleaser builds from the proxy alone.
//
// It declares only what nfpm uses. The project publishes zip archives, never
// MSIX packages: building one with this goreleaser fails with ErrUnavailable.
package msix

import (
	"crypto"
	"crypto/x509"
	"errors"
	"io"
)

// ErrUnavailable is returned by everything that would build or sign a package.
var ErrUnavailable = errors.New("MSIX packaging is not available in this goreleaser build (go.digitalxero.dev/go-msix is replaced by a stub)")

type Identity struct {
	Name                  string
	Version               string
	Publisher             string
	ProcessorArchitecture string
	ResourceID            string
}

type Properties struct {
	DisplayName          string
	PublisherDisplayName string
	Logo                 string
	Description          string
}

type TargetDeviceFamily struct {
	Name             string
	MinVersion       string
	MaxVersionTested string
}

type Dependencies struct {
	TargetDeviceFamilies []TargetDeviceFamily
}

type Resource struct {
	Language string
}

type VisualElements struct {
	DisplayName       string
	Description       string
	BackgroundColor   string
	Square150x150Logo string
	Square44x44Logo   string
}

type Application struct {
	ID             string
	Executable     string
	EntryPoint     string
	VisualElements VisualElements
}

type Capability struct{ Name string }

type DeviceCapability struct{ Name string }

type RestrictedCapability struct{ Name string }

type Capabilities struct {
	Capabilities       []Capability
	DeviceCapabilities []DeviceCapability
	Restricted         []RestrictedCapability
}

type Manifest struct {
	Identity     Identity
	Properties   Properties
	Dependencies Dependencies
	Resources    []Resource
	Applications []Application
	Capabilities Capabilities
}

type SignOptions struct {
	Certificate *x509.Certificate
	PrivateKey  crypto.Signer
	CertChain   []*x509.Certificate
}

type Builder struct {
	Manifest    Manifest
	SignOptions *SignOptions
}

func NewBuilder() *Builder { return &Builder{} }

func (*Builder) AddFile(string, string) error { return ErrUnavailable }

func (*Builder) Build(io.Writer) error { return ErrUnavailable }

func LoadPFX(string, string) (*x509.Certificate, crypto.Signer, []*x509.Certificate, error) {
	return nil, nil, nil, ErrUnavailable
}
