package server

import (
	"net/http"
	"strings"

	"github.com/verdict-ml/verdict/store"
)

// openAPI describes every route of the table, so the description cannot
// miss one: OpenAPI 3.1, with the role each route needs.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request, _ *caller) error {
	writeJSON(w, http.StatusOK, s.describe())
	return nil
}

func (s *Server) describe() map[string]any {
	paths := map[string]map[string]any{}
	for _, rt := range s.routes {
		op := map[string]any{
			"summary":     rt.summary,
			"operationId": strings.ToLower(rt.method) + strings.NewReplacer("/", "_", "{", "", "}", "", ".", "_").Replace(rt.pattern),
			"responses": map[string]any{
				"200":     map[string]any{"description": "the answer, as the command line's --format json"},
				"default": map[string]any{"description": "an error", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}},
			},
		}
		if rt.public {
			op["security"] = []any{}
		} else {
			op["x-verdict-role"] = string(rt.role)
			op["x-verdict-experiment-scope"] = rt.scope.name
		}
		var ps []any
		for _, seg := range strings.Split(rt.pattern, "/") {
			if strings.HasPrefix(seg, "{") {
				ps = append(ps, map[string]any{"name": strings.Trim(seg, "{}"), "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
			}
		}
		for _, p := range rt.params {
			schema := map[string]any{"type": p.kind}
			if p.repeat {
				schema = map[string]any{"type": "array", "items": map[string]any{"type": p.kind}}
			}
			ps = append(ps, map[string]any{"name": p.name, "in": "query", "required": p.required, "description": p.doc, "schema": schema, "explode": true})
		}
		if rt.idempotent {
			ps = append(ps, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false, "schema": map[string]any{"type": "string"},
				"description": "names the request: sent again with the same key and the same content, it returns the first answer and stores nothing more; " +
					"a log or evaluate with the same key and other content (body or parameters) is 409 conflict, and stores nothing"})
		}
		if ps != nil {
			op["parameters"] = ps
		}
		if rt.body != "" {
			content := map[string]any{}
			for _, t := range rt.bodyTypes {
				schema := map[string]any{"type": "string", "format": "binary"}
				if t == "multipart/form-data" {
					file := map[string]any{"type": "string", "format": "binary"}
					schema = map[string]any{"type": "object", "required": []string{"items", "targets"}, "properties": map[string]any{
						"items": file, "targets": file, "scores": file, "sample_ids": file}}
				}
				content[t] = map[string]any{"schema": schema}
			}
			op["requestBody"] = map[string]any{"required": true, "description": rt.body, "content": content}
		}
		if paths[rt.pattern] == nil {
			paths[rt.pattern] = map[string]any{}
		}
		paths[rt.pattern][strings.ToLower(rt.method)] = op
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "verdict", "version": store.Version(),
			"description": "Log ML evaluations with their per-user values, and tell whether a winner is real. Every route but /healthz needs a token: Authorization: Bearer <token>. Roles: reader < writer < admin; a token limited to an experiment reads and writes that experiment only."},
		"paths": paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
			"schemas": map[string]any{"Error": map[string]any{"type": "object", "properties": map[string]any{
				"error": map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}}}}}},
		},
		"security": []any{map[string]any{"bearer": []any{}}},
	}
}
