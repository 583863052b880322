// Package server is `verdict serve`: an HTTP API over the same store, and
// the same compare and report calls, as the command line, and a web view of
// the same HTML report.
//
// Every route but GET /healthz needs a token, checked once by the router
// for every route alike: a route declares the least role it needs (reader,
// writer, admin) and how to find the experiment a request touches, and New
// refuses a route that declares either not. A token limited to one
// experiment can read and write that experiment only. The API's answers are
// the JSON of the command line's --format json; its errors are
// {"error": {"code": ..., "message": ...}} with the status that fits, and
// bad input gets the command line's message, naming the line and sample.
package server
