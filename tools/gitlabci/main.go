// Command gitlabci checks GitLab CI files offline: each file is validated
// against GitLab's JSON schema for .gitlab-ci.yml (ci.json beside this file,
// see update-schema.sh), and its jobs are checked against each other, with
// extends resolved as GitLab does (hashes merged deeply, anything else
// replaced): every job has a script, every stage is declared, and every job
// named by needs or dependencies exists and runs in an earlier stage (or the
// same one, for needs).
//
//	go run -C tools/gitlabci . FILE...
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

//go:embed ci.json
var schemaJSON []byte

// globalKeywords are the top-level keys that are not jobs.
var globalKeywords = []string{
	"$schema", "spec", "image", "services", "before_script", "after_script", "variables", "cache",
	"default", "stages", "include", "workflow",
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gitlabci FILE...")
		os.Exit(2)
	}
	schema, err := compileSchema()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitlabci:", err)
		os.Exit(2)
	}
	failed := false
	for _, path := range os.Args[1:] {
		problems, err := check(schema, path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			failed = true
			continue
		}
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "%s: %s\n", path, p)
		}
		if len(problems) > 0 {
			failed = true
			continue
		}
		fmt.Printf("%s: valid\n", path)
	}
	if failed {
		os.Exit(1)
	}
}

func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("reading ci.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://gitlab.com/.gitlab-ci.yml"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

func check(schema *jsonschema.Schema, path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	// The schema speaks JSON: round-trip the document through it.
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("not representable as JSON: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	var problems []string
	if err := schema.Validate(inst); err != nil {
		problems = append(problems, "does not match GitLab's CI schema:\n"+err.Error())
	}
	return append(problems, checkJobs(doc)...), nil
}

// checkJobs checks what the schema cannot: references between jobs.
func checkJobs(doc map[string]any) []string {
	stages := []string{".pre", "build", "test", "deploy", ".post"}
	if declared, ok := doc["stages"].([]any); ok {
		stages = []string{".pre"}
		for _, s := range declared {
			stages = append(stages, fmt.Sprint(s))
		}
		stages = append(stages, ".post")
	}
	jobs := map[string]map[string]any{}
	var problems []string
	for name, v := range doc {
		if slices.Contains(globalKeywords, name) || strings.HasPrefix(name, ".") {
			continue
		}
		if _, ok := v.(map[string]any); ok {
			job, err := resolveExtends(doc, name, nil)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			jobs[name] = job
		}
	}
	stageOf := func(job map[string]any) string {
		if s, ok := job["stage"].(string); ok {
			return s
		}
		return "test"
	}
	names := make([]string, 0, len(jobs))
	for name := range jobs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		job := jobs[name]
		_, script := job["script"]
		_, trigger := job["trigger"]
		if !script && !trigger {
			problems = append(problems, fmt.Sprintf("job %q has no script, not even through extends", name))
		}
		stage := stageOf(job)
		at := slices.Index(stages, stage)
		if at < 0 {
			problems = append(problems, fmt.Sprintf("job %q: stage %q is not in stages %v", name, stage, stages[1:len(stages)-1]))
		}
		for _, key := range []string{"needs", "dependencies"} {
			list, _ := job[key].([]any)
			for _, item := range list {
				other := ""
				switch v := item.(type) {
				case string:
					other = v
				case map[string]any:
					if _, crossProject := v["project"]; crossProject {
						continue
					}
					if _, upstream := v["pipeline"]; upstream {
						continue
					}
					other, _ = v["job"].(string)
				}
				target, ok := jobs[other]
				if !ok {
					problems = append(problems, fmt.Sprintf("job %q: %s names %q, which is not a job of this file", name, key, other))
					continue
				}
				otherAt := slices.Index(stages, stageOf(target))
				if otherAt > at || (key == "dependencies" && otherAt == at) {
					problems = append(problems, fmt.Sprintf("job %q (stage %q): %s names %q of a later stage %q", name, stage, key, other, stageOf(target)))
				}
			}
		}
	}
	return problems
}

// resolveExtends returns the job called name with the jobs it extends merged
// in, as GitLab does: later entries of extends win, the job itself last.
func resolveExtends(doc map[string]any, name string, seen []string) (map[string]any, error) {
	if slices.Contains(seen, name) {
		return nil, fmt.Errorf("job %q: extends loops through %v", seen[0], append(seen, name))
	}
	job, ok := doc[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("job %q: extends names %q, which is not a job or template of this file", seen[len(seen)-1], name)
	}
	var parents []string
	switch v := job["extends"].(type) {
	case string:
		parents = []string{v}
	case []any:
		for _, p := range v {
			parents = append(parents, fmt.Sprint(p))
		}
	}
	merged := map[string]any{}
	for _, parent := range parents {
		base, err := resolveExtends(doc, parent, append(seen, name))
		if err != nil {
			return nil, err
		}
		merged = deepMerge(merged, base)
	}
	own := map[string]any{}
	for k, v := range job {
		if k != "extends" {
			own[k] = v
		}
	}
	return deepMerge(merged, own), nil
}

// deepMerge merges over into base: maps key by key, anything else replaced.
func deepMerge(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if bm, ok := out[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				out[k] = deepMerge(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}
