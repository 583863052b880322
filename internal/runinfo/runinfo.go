// Package runinfo turns what a front end is told about a run into its
// description: run parameters from a JSON file and KEY=VALUE pairs, run
// tags, evaluation metadata, and the git commit the run was trained at.
//
// It does not parse flags, and it does not log: a front door hands it the
// values it was given, and stores the Description it returns.
package runinfo

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Sources are where a run's description comes from. The zero value sets
// empty params and metadata and the commit checked out in the working
// directory.
type Sources struct {
	ParamsFile string   // a file holding a JSON object of run parameters, or ""
	Params     []string // KEY=VALUE run parameters; they win over the file's
	Meta       []string // KEY=VALUE evaluation metadata
	Tags       []string // KEY=VALUE run tags, or KEY for KEY=true
	GitCommit  string   // the run's commit; "" for the working directory's HEAD
	// Remote says the run is elsewhere (a request to a server): an empty
	// GitCommit stays empty rather than naming this process's directory.
	Remote bool
}

// Description is a run's parameters and tags, its evaluation's metadata
// and the commit the run was trained at.
type Description struct {
	Params    map[string]any
	Tags      map[string]string
	Metadata  map[string]any
	GitCommit string
}

// Describe reads the description s gives.
//
// A VALUE that parses as JSON is kept as such (numbers, true, null, arrays,
// objects); anything else is a string, so that lr=0.1 is a number and
// model=als a string. The error names what is wrong, as
// `params file p.json: not a JSON object: ...` or
// `param "lr": want KEY=VALUE`.
func (s Sources) Describe() (Description, error) {
	params := map[string]any{}
	if s.ParamsFile != "" {
		b, err := os.ReadFile(s.ParamsFile)
		if err != nil {
			return Description{}, fmt.Errorf("params file: %w", err)
		}
		if err := json.Unmarshal(b, &params); err != nil {
			return Description{}, fmt.Errorf("params file %s: not a JSON object: %w", s.ParamsFile, err)
		}
	}
	if err := keyValues(params, s.Params, "param"); err != nil {
		return Description{}, err
	}
	meta := map[string]any{}
	if err := keyValues(meta, s.Meta, "meta"); err != nil {
		return Description{}, err
	}
	tags, err := Tags(s.Tags)
	if err != nil {
		return Description{}, err
	}
	d := Description{Params: params, Tags: tags, Metadata: meta, GitCommit: s.GitCommit}
	if d.GitCommit == "" && !s.Remote {
		d.GitCommit = GitHead()
	}
	return d, nil
}

// keyValues adds KEY=VALUE pairs to m; what names them in messages.
func keyValues(m map[string]any, pairs []string, what string) error {
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("%s %q: want KEY=VALUE", what, kv)
		}
		var parsed any
		if err := json.Unmarshal([]byte(v), &parsed); err == nil {
			m[k] = parsed
		} else {
			m[k] = v
		}
	}
	return nil
}

// Tags reads run tags: KEY=VALUE, split at the first '=', gives the tag
// KEY the value VALUE (a string, kept as written: team=recsys, epochs=10),
// and a bare KEY the value "true". A later tag of the same key wins. A tag
// with an empty key is an error, such as `tag "=x": want KEY or
// KEY=VALUE`.
func Tags(tags []string) (map[string]string, error) {
	out := make(map[string]string, len(tags))
	for _, t := range tags {
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			v = "true"
		}
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("tag %q: want KEY or KEY=VALUE", t)
		}
		out[k] = v
	}
	return out, nil
}

// GitHead is the commit checked out in the working directory's git
// repository, or "" outside one or without git.
func GitHead() string {
	out, err := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
