package server

import (
	"net/http"
	"strconv"
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
		path := openAPIPath(rt.pattern)
		op := map[string]any{
			"summary":     rt.summary,
			"operationId": strings.ToLower(rt.method) + strings.NewReplacer("/", "_", "{", "", "}", "", ".", "_").Replace(path),
			"responses":   responses(rt),
		}
		if rt.public {
			op["security"] = []any{}
		} else {
			op["x-verdict-role"] = string(rt.role)
			op["x-verdict-experiment-scope"] = rt.scope.name
		}
		var ps []any
		for _, seg := range strings.Split(path, "/") {
			if strings.HasPrefix(seg, "{") {
				ps = append(ps, map[string]any{"name": strings.Trim(seg, "{}"), "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
			}
		}
		for _, p := range rt.params {
			schema := map[string]any{"type": p.kind}
			if p.enum != nil {
				schema["enum"] = p.enum
			}
			if p.repeat {
				schema = map[string]any{"type": "array", "items": schema}
			}
			if p.def != "" {
				schema["default"] = defaultValue(p.kind, p.def)
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
					props, required := map[string]any{}, []string{}
					for _, p := range rt.parts {
						props[p.name] = map[string]any{"type": "string", "format": "binary", "description": p.doc}
						if p.required {
							required = append(required, p.name)
						}
					}
					schema = map[string]any{"type": "object", "properties": props}
					if len(required) > 0 {
						schema["required"] = required
					}
				}
				content[t] = map[string]any{"schema": schema}
			}
			op["requestBody"] = map[string]any{"required": true, "description": rt.body, "content": content}
		}
		if paths[path] == nil {
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(rt.method)] = op
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

// openAPIPath is the OpenAPI path of a ServeMux pattern: {$}, which only
// anchors the pattern at its end, is dropped, and a wildcard {name...} that
// takes the rest of the path is the parameter {name}.
func openAPIPath(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, seg := range segs {
		switch {
		case seg == "{$}":
			segs[i] = ""
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "...}"):
			segs[i] = strings.TrimSuffix(seg, "...}") + "}"
		}
	}
	return strings.Join(segs, "/")
}

// responses declares the statuses rt answers: its success, and the errors
// it can meet besides those every route may (400, 401, 403, 404, 500),
// which default describes.
func responses(rt route) map[string]any {
	answer := "the answer, as the command line's --format json"
	if rt.web {
		answer = "the page"
	}
	if rt.pattern == "/metrics" {
		answer = "the metrics, in Prometheus' text format"
	}
	resp := func(desc string) map[string]any { return map[string]any{"description": desc} }
	errResp := func(desc string) map[string]any {
		return map[string]any{"description": desc,
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
	}
	rs := map[string]any{"default": errResp("an error")}
	switch {
	case rt.web && rt.method == http.MethodPost:
		rs["303"] = resp("done: on to the next page")
	case rt.created:
		rs["201"] = resp("created: " + answer)
		if rt.idempotent {
			rs["200"] = resp("nothing new stored (a retry with the same Idempotency-Key and content, the same evaluation again, or evaluate's no_log): " + answer)
		}
	default:
		rs["200"] = resp(answer)
	}
	if rt.conflict != "" {
		rs["409"] = errResp(rt.conflict)
	}
	if rt.body != "" {
		rs["413"] = errResp("the body is larger than the server's --max-body")
	}
	if len(rt.params) > 0 || rt.body != "" {
		rs["422"] = errResp("invalid input: a parameter out of range, or a body that does not parse")
	}
	if !rt.public {
		rs["429"] = map[string]any{"description": "too many failed tokens from this address: try again after Retry-After seconds",
			"headers": map[string]any{"Retry-After": map[string]any{"description": "seconds to wait", "schema": map[string]any{"type": "integer"}}},
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
	}
	return rs
}

// defaultValue is a parameter's default as JSON gives a value of its kind.
func defaultValue(kind, text string) any {
	switch kind {
	case "integer":
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n
		}
	case "number":
		if x, err := strconv.ParseFloat(text, 64); err == nil {
			return x
		}
	case "boolean":
		return text == "true"
	}
	return text
}
