// The fixtures of go-tfe 0.11.1's own tests, made through the fake's control API instead of API
// calls the fake does not serve: this file replaces go-tfe's helper_test.go when run.mjs runs
// run_test.go, configuration_version_test.go, plan_test.go and apply_test.go (test bodies
// unchanged) against `infra-doubles serve`. Organizations, workspaces and the suite's user come from
// POST /_sim/runs/organizations, /_sim/runs/workspaces and /_sim/runs/users; configuration versions,
// runs, plans and applies from go-tfe's own calls, as in the original. Cleanups do nothing: the dev
// server is thrown away after the suite (the fake has no delete endpoints for these fixtures).
//
// Set by run.mjs: TFE_ADDRESS (the dev server's origin).

package tfe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-uuid"
)

const badIdentifier = "! / nope"

// suite is what every test shares: one organization (the real suite makes one per test; nothing in
// these four files reads an organization) and a user with admin access to it.
var suite struct {
	once         sync.Once
	err          error
	organization string
	token        string
}

// control posts a JSON body to the dev server's control API and decodes the answer into out.
func control(path string, body interface{}, out interface{}) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	address := strings.TrimRight(os.Getenv("TFE_ADDRESS"), "/")
	resp, err := http.Post(address+"/_sim/runs"+path, "application/json", bytes.NewReader(payload))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	text, err := ioutil.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST /_sim/runs%s: %d %s", path, resp.StatusCode, text)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(text, out)
}

func setUpSuite() error {
	id, err := uuid.GenerateUUID()
	if err != nil {
		return err
	}
	var org struct{ Name string }
	// Cost estimation enabled, as on the organization go-tfe's suite ran against (TestRunsRead waits
	// for cost_estimated).
	if err := control("/organizations", map[string]interface{}{"name": "tst-" + id, "costEstimationEnabled": true}, &org); err != nil {
		return err
	}
	var user struct{ Token string }
	err = control("/users", map[string]interface{}{
		"username":           "go-tfe-suite-" + id[:8],
		"organizationAccess": map[string]string{org.Name: "admin"},
	}, &user)
	if err != nil {
		return err
	}
	suite.organization = org.Name
	suite.token = user.Token
	return nil
}

func testClient(t *testing.T) *Client {
	suite.once.Do(func() { suite.err = setUpSuite() })
	if suite.err != nil {
		t.Fatal(suite.err)
	}
	client, err := NewClient(&Config{Address: os.Getenv("TFE_ADDRESS"), Token: suite.token})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func createOrganization(t *testing.T, client *Client) (*Organization, func()) {
	return &Organization{Name: suite.organization}, func() {}
}

// createWorkspace makes a workspace whose runs take about as long as on the service go-tfe's suite
// was written against: plans and applies about a second each.
func createWorkspace(t *testing.T, client *Client, org *Organization) (*Workspace, func()) {
	if org == nil {
		org, _ = createOrganization(t, client)
	}
	var w struct{ ID, Name, Organization string }
	if err := control("/workspaces", map[string]string{"organization": org.Name, "name": randomString(t)}, &w); err != nil {
		t.Fatal(err)
	}
	outcome := map[string]interface{}{
		"workspaceId": w.ID,
		"durations": map[string]string{
			"queue": "100ms", "fetch": "100ms", "handoff": "100ms", "planQueue": "100ms", "plan": "1s",
			"costEstimate": "200ms", "applyQueue": "100ms", "apply": "1s",
		},
	}
	if err := control("/outcomes", outcome, nil); err != nil {
		t.Fatal(err)
	}
	return &Workspace{ID: w.ID, Name: w.Name, Organization: &Organization{Name: w.Organization}}, func() {}
}

func createConfigurationVersion(t *testing.T, client *Client, w *Workspace) (*ConfigurationVersion, func()) {
	if w == nil {
		w, _ = createWorkspace(t, client, nil)
	}
	ctx := context.Background()
	cv, err := client.ConfigurationVersions.Create(ctx, w.ID, ConfigurationVersionCreateOptions{AutoQueueRuns: Bool(false)})
	if err != nil {
		t.Fatal(err)
	}
	return cv, func() {}
}

func createUploadedConfigurationVersion(t *testing.T, client *Client, w *Workspace) (*ConfigurationVersion, func()) {
	cv, cvCleanup := createConfigurationVersion(t, client, w)

	ctx := context.Background()
	err := client.ConfigurationVersions.Upload(ctx, cv.UploadURL, "test-fixtures/config-version")
	if err != nil {
		cvCleanup()
		t.Fatal(err)
	}

	for i := 0; ; i++ {
		cv, err = client.ConfigurationVersions.Read(ctx, cv.ID)
		if err != nil {
			cvCleanup()
			t.Fatal(err)
		}
		if cv.Status == ConfigurationUploaded {
			break
		}
		if i > 10 {
			cvCleanup()
			t.Fatal("Timeout waiting for the configuration version to be uploaded")
		}
		time.Sleep(1 * time.Second)
	}
	return cv, cvCleanup
}

func createRun(t *testing.T, client *Client, w *Workspace) (*Run, func()) {
	if w == nil {
		w, _ = createWorkspace(t, client, nil)
	}
	cv, cvCleanup := createUploadedConfigurationVersion(t, client, w)

	ctx := context.Background()
	r, err := client.Runs.Create(ctx, RunCreateOptions{
		ConfigurationVersion: cv,
		Workspace:            w,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, cvCleanup
}

// waitFor polls the run until its status is one of want (45 tries a second apart, as go-tfe's helpers do).
func waitFor(t *testing.T, client *Client, r *Run, what string, want ...RunStatus) *Run {
	var err error
	ctx := context.Background()
	for i := 0; ; i++ {
		r, err = client.Runs.Read(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, status := range want {
			if r.Status == status {
				return r
			}
		}
		if i > 45 {
			t.Fatalf("Timeout waiting for run to be %s (status %s)", what, r.Status)
		}
		time.Sleep(1 * time.Second)
	}
}

func createPlannedRun(t *testing.T, client *Client, w *Workspace) (*Run, func()) {
	r, rCleanup := createRun(t, client, w)
	return waitFor(t, client, r, "planned", RunPlanned, RunCostEstimated, RunPolicyChecked, RunPolicyOverride), rCleanup
}

func createCostEstimatedRun(t *testing.T, client *Client, w *Workspace) (*Run, func()) {
	r, rCleanup := createRun(t, client, w)
	return waitFor(t, client, r, "cost estimated", RunCostEstimated, RunPolicyChecked, RunPolicyOverride), rCleanup
}

func createAppliedRun(t *testing.T, client *Client, w *Workspace) (*Run, func()) {
	r, rCleanup := createPlannedRun(t, client, w)
	ctx := context.Background()
	if err := client.Runs.Apply(ctx, r.ID, RunApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	return waitFor(t, client, r, "applied", RunApplied), rCleanup
}

func randomString(t *testing.T) string {
	v, err := uuid.GenerateUUID()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
