// Package storetest starts real object stores on loopback for tests: S3
// (versitygw), Google Cloud Storage (fake-gcs-server) and Azure Blob
// Storage (Azurite), each with one empty bucket, stopped when the test
// ends. The servers are pinned builds from tools/ (make tools), cached
// outside the repository; a missing one fails or skips the test through
// internal/testtools. Setenv gives the SDKs the servers' credentials and
// nothing of the machine's: a test must never reach an instance-metadata
// address or a real cloud.
package storetest
