package server

import (
	"net/http"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

// curve answers GET /api/v1/curve: the runs' training curve, as verdict
// curve --format json.
func (s *Server) curve(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req compare.CurveRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	tc, err := compare.Curve(r.Context(), s.store, req)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Curve(w, "json", tc)
}
