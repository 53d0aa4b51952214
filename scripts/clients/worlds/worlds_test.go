// 50 parallel go-tfe tests, each in a world of its own made by helper_test.go's NewWorld, on one
// `infra-doubles serve` (issue 26 item 1): every world has the same workspace id (same seed), and
// each test locks it, moves its clock by its own amount and adds its own fault; none sees another's
// lock, time, journal, faults or coverage. Run by scripts/clients/run.mjs (worlds):
//
//	INFRA_DOUBLES_URL=http://127.0.0.1:8080 GO111MODULE=off GOPATH=/usr/share/gocode \
//	  go test -count=1 -parallel 50 ./scripts/clients/worlds/
package worlds

import (
	"context"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"net/http"
	"strings"
	"testing"
	"time"

	tfe "github.com/hashicorp/go-tfe"
)

const worlds = 50

// control calls the world's own /_sim/ API with its token and decodes the answer into out.
func control(t *testing.T, w *World, method, path, body string, out interface{}) {
	t.Helper()
	req, _ := http.NewRequest(method, w.URL+"/_sim"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Infra-Doubles-Control-Token", w.ControlToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := ioutil.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s /_sim%s: %d %s", method, path, resp.StatusCode, text)
	}
	if out != nil {
		if err := json.Unmarshal(text, out); err != nil {
			t.Fatalf("%s /_sim%s: %v in %s", method, path, err, text)
		}
	}
}

func TestWorldsInParallel(t *testing.T) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < worlds; i++ {
		i := i
		t.Run(fmt.Sprintf("world-%d", i), func(t *testing.T) {
			t.Parallel()
			w := NewWorld(t, `{"clock": "manual", "start": "2024-01-01T00:00:00Z"}`)
			// A control call without the world's token is refused.
			resp, err := http.Get(w.URL + "/_sim/clock")
			if err != nil || resp.StatusCode != 401 {
				t.Fatalf("GET /_sim/clock without the token: %v %v", resp, err)
			}
			resp.Body.Close()
			client, err := tfe.NewClient(&tfe.Config{Address: w.URL, Token: w.Runs.UserToken})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			// The same workspace id in every world: a lock in another world would make this one 409.
			ws, err := client.Workspaces.Lock(ctx, w.Runs.WorkspaceID, tfe.WorkspaceLockOptions{Reason: tfe.String(fmt.Sprintf("test %d", i))})
			if err != nil || !ws.Locked {
				t.Fatalf("lock %s: %v", w.Runs.WorkspaceID, err)
			}
			control(t, w, "POST", "/faults", fmt.Sprintf(`{"service": "runs", "route": "GET /workspaces/:workspace_id", "answer": "internal-error", "id": "fault-of-%d"}`, i), nil)
			control(t, w, "POST", "/clock/advance", fmt.Sprintf(`{"by": "%dm"}`, i+1), nil)

			var clock struct{ EpochMs int64 }
			control(t, w, "GET", "/clock", "", &clock)
			if want := start.Add(time.Duration(i+1) * time.Minute).UnixNano() / 1e6; clock.EpochMs != want {
				t.Errorf("clock: %d, want %d", clock.EpochMs, want)
			}
			var faults struct{ Faults []struct{ ID string } }
			control(t, w, "GET", "/faults", "", &faults)
			if len(faults.Faults) != 1 || faults.Faults[0].ID != fmt.Sprintf("fault-of-%d", i) {
				t.Errorf("faults: %+v", faults.Faults)
			}
			// The world's own fault answers (go-tfe retries no 500 by default); no other world's does.
			if _, err := client.Workspaces.ReadByID(ctx, w.Runs.WorkspaceID); err == nil {
				t.Errorf("read workspace: the world's own fault did not answer")
			}
			var journal struct{ Entries []struct{ Method, URL, Route string } }
			control(t, w, "GET", "/journal", "", &journal)
			locks := 0
			for _, entry := range journal.Entries {
				if !strings.HasPrefix(entry.URL, w.URL+"/") {
					t.Errorf("journal: %s %s is another world's", entry.Method, entry.URL)
				}
				if entry.Method+" "+entry.Route == "POST /workspaces/:workspace_id/actions/lock" {
					locks++
				}
			}
			if locks != 1 {
				t.Errorf("journal: %d locks, want 1 (%+v)", locks, journal.Entries)
			}
			var coverage struct {
				Services map[string]struct{ Endpoints struct{ Reached map[string]int } }
			}
			control(t, w, "GET", "/coverage", "", &coverage)
			if n := coverage.Services["runs"].Endpoints.Reached["POST /workspaces/:workspace_id/actions/lock"]; n != 1 {
				t.Errorf("coverage: %d locks, want 1", n)
			}
		})
	}
}
