// Package runinfo turns what a front end is told about a run into the
// description that store.NewEvaluation records: run parameters from a JSON
// file and KEY=VALUE pairs, evaluation metadata, and the git commit the run
// was trained at.
//
// It does not parse flags, and it does not log: the command line hands it
// the values of its flags, and logs the evaluation it fills.
package runinfo

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/verdict-ml/verdict/store"
)

// Sources are where a run's description comes from. The zero value sets
// empty params and metadata and the commit checked out in the working
// directory.
type Sources struct {
	ParamsFile string   // a file holding a JSON object of run parameters, or ""
	Params     []string // KEY=VALUE run parameters; they win over the file's
	Meta       []string // KEY=VALUE evaluation metadata
	GitCommit  string   // the run's commit; "" for the working directory's HEAD
	// Remote says the run is elsewhere (a request to a server): an empty
	// GitCommit stays empty rather than naming this process's directory.
	Remote bool
}

// Apply sets ev's Params, Metadata and GitCommit from s.
//
// A VALUE that parses as JSON is kept as such (numbers, true, null, arrays,
// objects); anything else is a string, so that lr=0.1 is a number and
// model=als a string. The error names what is wrong, as
// `params file p.json: not a JSON object: ...` or
// `param "lr": want KEY=VALUE`.
func (s Sources) Apply(ev *store.NewEvaluation) error {
	params := map[string]any{}
	if s.ParamsFile != "" {
		b, err := os.ReadFile(s.ParamsFile)
		if err != nil {
			return fmt.Errorf("params file: %w", err)
		}
		if err := json.Unmarshal(b, &params); err != nil {
			return fmt.Errorf("params file %s: not a JSON object: %w", s.ParamsFile, err)
		}
	}
	if err := keyValues(params, s.Params, "param"); err != nil {
		return err
	}
	meta := map[string]any{}
	if err := keyValues(meta, s.Meta, "meta"); err != nil {
		return err
	}
	ev.Params, ev.Metadata = params, meta
	ev.GitCommit = s.GitCommit
	if ev.GitCommit == "" && !s.Remote {
		ev.GitCommit = GitHead()
	}
	return nil
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

// GitHead is the commit checked out in the working directory's git
// repository, or "" outside one or without git.
func GitHead() string {
	out, err := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
