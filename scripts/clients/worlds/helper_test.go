// The Go test helper of docs/guides/run-parallel-suites-against-one-server.md, as printed there
// (test/guides/worlds-helpers.test.ts checks that the guide's block is this file after the package
// line). Copy it into your own test package.
package worlds

import (
	"encoding/json"
	"io/ioutil"
	"net/http"
	"os"
	"strings"
	"testing"
)

// World is a world of its own on the dev server at INFRA_DOUBLES_URL: its services on a port of
// its own (URL), the default scenario's credentials, and the token its /_sim/ routes need.
type World struct {
	ID, URL, ControlToken string
	Runs                  struct{ BaseURL, UserToken, AdminToken, Organization, WorkspaceID string }
	Secrets               struct{ BaseURL, RootToken string }
}

// NewWorld creates a world for t (body "{}", or e.g. `{"seed": 7, "clock": "manual"}`) and closes
// it when t ends. Under `infra-doubles mutate`, the world is built as the mutant it names.
func NewWorld(t *testing.T, body string) *World {
	t.Helper()
	server := os.Getenv("INFRA_DOUBLES_URL")
	if mutant := os.Getenv("INFRA_DOUBLES_MUTANT"); mutant != "" {
		options := map[string]interface{}{}
		if err := json.Unmarshal([]byte(body), &options); err != nil {
			t.Fatal(err)
		}
		if _, set := options["mutant"]; !set {
			options["mutant"] = mutant
		}
		text, _ := json.Marshal(options)
		body = string(text)
	}
	resp, err := http.Post(server+"/_sim/worlds", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := ioutil.ReadAll(resp.Body)
	w := &World{}
	if resp.StatusCode != 201 || json.Unmarshal(text, w) != nil {
		t.Fatalf("POST /_sim/worlds: %d %s", resp.StatusCode, text)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest("DELETE", server+"/_sim/worlds/"+w.ID, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return w
}
