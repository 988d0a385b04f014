package provider

import "os"

// frameworkLogLevel is the variable that sets the level of the plugin
// framework's own logs.
const frameworkLogLevel = "TF_LOG_SDK_FRAMEWORK"

// LimitFrameworkLogs stops the plugin framework's own logs at DEBUG unless
// TF_LOG_SDK_FRAMEWORK sets their level. Without a level of its own, the
// framework (1.19) calls its TRACE logger for every value of a resource's
// state on every read, plan and apply, and each call searches a context
// that grows by one layer per value: work that grows with the square of the
// state (hashicorp/terraform-plugin-framework#1269, #721). With a level set,
// those calls return at once: make bench-unpack plans a site of 11,010
// files in 11 s instead of 17 s, and doubling the files multiplies the
// time by 1.8 instead of 2.6. Only the framework's per-value TRACE lines are
// lost; TF_LOG_SDK_FRAMEWORK=trace brings them back, and the cost with them.
// The provider's own logs keep Terraform's TF_LOG and TF_LOG_PROVIDER.
func LimitFrameworkLogs() {
	if _, set := os.LookupEnv(frameworkLogLevel); !set {
		_ = os.Setenv(frameworkLogLevel, "DEBUG")
	}
}
