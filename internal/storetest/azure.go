package storetest

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
)

// Azurite's one account, with the key it publishes.
const (
	azureAccount = "devstoreaccount1"
	azureKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

var azurite = tool{
	name:   "azurite",
	pins:   []string{"azurite/package.json", "azurite/package-lock.json"},
	path:   "node_modules/.bin/azurite-blob",
	script: "azurite.sh",
}

// Azure starts Azurite's Blob service with Node.js, its data in a
// temporary directory. The SDK finds it, and the account's key, through
// AZURE_STORAGE_CONNECTION_STRING.
func Azure(t testing.TB) *Server {
	t.Helper()
	launcher := azurite.find(t)
	node := testtools.LookPath(t, "node", "Node.js: "+testtools.MakeTools)
	addr := freeAddr(t)
	host, port, _ := strings.Cut(addr, ":")
	dir := t.TempDir()
	// Loose mode and any API version: the SDK may be newer than the
	// emulator. No telemetry: nothing leaves the host.
	cmd := exec.Command(node, launcher, "--blobHost", host, "--blobPort", port, "--location", dir,
		"--silent", "--skipApiVersionCheck", "--loose", "--disableTelemetry")
	cmd.Dir = dir
	serve(t, "azurite", cmd, addr)

	conn := AzuriteConnectionString(addr)
	client, err := container.NewClientFromConnectionString(conn, bucketName, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), setupTimeout)
	defer cancel()
	if _, err := client.Create(ctx, nil); err != nil {
		t.Fatalf("creating the Azure container: %v", err)
	}
	return &Server{
		Name:   objectstore.KindAzure,
		Target: objectstore.Target{Kind: objectstore.KindAzure, Bucket: bucketName},
		// The connection string carries the endpoint and the key; the
		// service URL that gocloud.dev builds besides must name the
		// emulator too, and newer releases refuse plain HTTP without
		// IS_LOCAL_EMULATOR.
		Env: []string{
			"AZURE_STORAGE_CONNECTION_STRING=" + conn,
			"AZURE_STORAGE_DOMAIN=" + addr,
			"AZURE_STORAGE_IS_LOCAL_EMULATOR=true",
		},
	}
}

// AzuriteKey is the key of Azurite's well-known account, devstoreaccount1.
const AzuriteKey = azureKey

// AzuriteConnectionString is the connection string of Azurite's account at
// addr (host:port), with its key.
func AzuriteConnectionString(addr string) string {
	return "DefaultEndpointsProtocol=http;AccountName=" + azureAccount + ";AccountKey=" + azureKey +
		";BlobEndpoint=http://" + addr + "/" + azureAccount + ";"
}
