package server

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ *caller) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": store.Version()})
	return nil
}

func (s *Server) listExperiments(w http.ResponseWriter, r *http.Request, c *caller) error {
	list, err := s.experiments(r, c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// experiments lists the experiments the caller may see.
func (s *Server) experiments(r *http.Request, c *caller) ([]store.Experiment, error) {
	list, err := s.store.ListExperiments(r.Context(), c.limited())
	if list == nil {
		list = []store.Experiment{}
	}
	return list, err
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request, c *caller) error {
	var rq store.RunQuery
	if err := decode(r, &rq); err != nil {
		return err
	}
	runs, err := s.store.SearchRuns(r.Context(), rq)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Runs(w, "json", runs, false)
}

func (s *Server) listEvaluations(w http.ResponseWriter, r *http.Request, c *caller) error {
	var f store.EvaluationFilter
	if err := decode(r, &f); err != nil {
		return err
	}
	list, err := s.store.ListEvaluations(r.Context(), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.StoredList(w, list)
}

func (s *Server) getEvaluation(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var view store.EvaluationView
	if err := decode(r, &view); err != nil {
		return err
	}
	e, rows, err := view.Get(r.Context(), s.store, id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.ShowEvaluation(w, "json", e, rows, view.Debug)
}

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req compare.LeaderboardRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	version, _, err := s.store.ExperimentVersions(r.Context(), req.Experiment, false)
	if err != nil {
		return err
	}
	body, err := s.answers.get(cacheKey("leaderboard", r.URL.Query(), version), bytesOf(func(buf *bytes.Buffer) error {
		// Computed for whoever asks first, and kept for the others: it
		// must not stop when that request goes away.
		q := req.Query()
		q.Rows = s.rows
		defer s.boards.lock(q.Experiment)()
		lb, err := compare.NewLeaderboard(context.WithoutCancel(r.Context()), s.store, q)
		if err != nil {
			return err
		}
		return report.Leaderboard(buf, "json", lb)
	}))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body.([]byte))
	return err
}

func (s *Server) compare(record bool) func(http.ResponseWriter, *http.Request, *caller) error {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		var req compare.Request
		if err := decode(r, &req); err != nil {
			return err
		}
		if _, _, err := req.Options(record); err != nil {
			return err
		}
		return s.recording(w, r, c, record, func(buf *bytes.Buffer) error {
			res, err := req.Run(r.Context(), s.store, s.finder(c), record, report.Verdict)
			if err != nil {
				return err
			}
			s.metrics.compared(record)
			return report.Comparison(buf, "json", res)
		})
	}
}

func (s *Server) rank(record bool) func(http.ResponseWriter, *http.Request, *caller) error {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		var req compare.RankRequest
		if err := decode(r, &req); err != nil {
			return err
		}
		return s.recording(w, r, c, record, func(buf *bytes.Buffer) error {
			res, err := req.Run(r.Context(), s.store, s.finder(c), record, report.RankVerdict)
			if err != nil {
				return err
			}
			return report.Ranking(buf, "json", res)
		})
	}
}

// recording answers a request that records in the history when record is
// set: with an Idempotency-Key, a request sent again gets the first answer
// and records nothing more (replays).
func (s *Server) recording(w http.ResponseWriter, r *http.Request, c *caller, record bool, compute func(*bytes.Buffer) error) error {
	key := r.Header.Get("Idempotency-Key")
	var body []byte
	var err error
	if record && key != "" {
		id := int64(0)
		if c.token != nil {
			id = c.token.ID
		}
		body, err = s.replays.do(fmt.Sprintf("%d %s %s %s", id, r.Method, r.URL.Path, key), r.URL.Query().Encode(), compute)
	} else {
		var buf bytes.Buffer
		err = compute(&buf)
		body = buf.Bytes()
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req compare.DiffRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	d, err := req.Run(r.Context(), s.store, s.finder(c))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Diff(w, "json", d)
}

func (s *Server) history(w http.ResponseWriter, r *http.Request, c *caller) error {
	var q compare.HistoryQuery
	if err := decode(r, &q); err != nil {
		return err
	}
	f, err := q.Filter(time.Now())
	if err != nil {
		return err
	}
	hist, err := s.historyFor(r.Context(), c, f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	if q.FDR {
		l, err := compare.Ledger(r.Context(), s.store, f.Experiment)
		if err != nil {
			return err
		}
		return report.HistoryFDR(w, "json", l, hist)
	}
	return report.HistoryEntries(w, "json", hist)
}

func (s *Server) getComparison(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	h, err := compare.GetComparison(r.Context(), s.store, id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Recorded(w, "json", h)
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, c *caller) error {
	list, err := s.store.ListTokens(r.Context())
	if err != nil {
		return err
	}
	if list == nil {
		list = []store.Token{}
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req store.NewToken
	if err := decode(r, &req); err != nil {
		return err
	}
	t, secret, err := req.Create(r.Context(), s.store)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, struct {
		*store.Token
		Secret string `json:"token"`
	}{t, secret})
	return nil
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return &httpError{status: http.StatusNotFound, code: "not_found", msg: fmt.Sprintf("%q is not a token ID", r.PathValue("id"))}
	}
	t, err := s.store.RevokeToken(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}
