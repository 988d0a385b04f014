module github.com/docsadmin/terraform-provider-docsadmin/tools/cross

go 1.26.0

require (
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/tools v0.52.0
)

require (
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
