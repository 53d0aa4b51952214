// Command go-tfe drives the run orchestration service of `infra-doubles serve` with go-tfe, the
// official Go client, configured as its README says (tfe.NewClient with Address and Token, which
// first reads GET /api/v2/ping): read the token's user (Users.ReadCurrent), the organization
// (Organizations.Read), the workspace by id and by name (Workspaces.ReadByID, Workspaces.Read),
// lock and unlock it (Workspaces.Lock, Unlock, ForceUnlock, with go-tfe's ErrWorkspaceLocked and
// ErrWorkspaceNotLocked for the 409s), create a configuration version, upload a directory, create a run WITHOUT a configuration
// version (go-tfe sends "configuration-version": {"data": null}), read it until it is planned,
// apply it with a comment, and read it until it is applied. Time is pushed with the dev server's
// POST /_sim/clock/advance so the run's timed phases pass at once. The plan's log is read with
// Plans.Logs from while the plan runs (go-tfe's LogReader polls until ETX and a finished plan), the
// apply's with Applies.Logs: their counts are the configuration's one root-module resource block.
//
// Run it through scripts/clients/run.mjs (it starts the server and passes these variables):
//
//	TFE_ADDRESS=http://127.0.0.1:8080 TFE_TOKEN=... TFE_ORGANIZATION=demo-org TFE_WORKSPACE=ws-... \
//	GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE=/tmp/gocache go run scripts/clients/go-tfe/main.go
//
// Debian: apt-get install golang-go golang-github-hashicorp-go-tfe-dev (go-tfe 0.11.1).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	tfe "github.com/hashicorp/go-tfe"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "go-tfe: "+format+"\n", args...)
	os.Exit(1)
}

func advance(address, by string) {
	resp, err := http.Post(address+"/_sim/clock/advance", "application/json", bytes.NewBufferString(`{"by":"`+by+`"}`))
	if err != nil {
		fail("advance the clock: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		fail("advance the clock: status %d", resp.StatusCode)
	}
}

// checkUploadedFiles reads the dev server's journal: the upload's entry lists the files the fake
// read from go-tfe's archive (go-slug packs directories too; the fake lists regular files).
func checkUploadedFiles(address string, want []string) {
	resp, err := http.Get(address + "/_sim/journal")
	if err != nil {
		fail("read the journal: %v", err)
	}
	defer resp.Body.Close()
	var journal struct {
		Entries []struct {
			Method             string   `json:"method"`
			ConfigurationFiles []string `json:"configurationFiles"`
		} `json:"entries"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&journal); err != nil {
		fail("decode the journal: %v", err)
	}
	var got []string
	for _, entry := range journal.Entries {
		if entry.Method == "PUT" {
			got = entry.ConfigurationFiles
		}
	}
	if !reflect.DeepEqual(got, want) {
		fail("the upload's files are %q, not %q", got, want)
	}
	fmt.Printf("the fake read the files go-tfe packed: %s\n", strings.Join(got, ", "))
}

func main() {
	address, token, workspace := os.Getenv("TFE_ADDRESS"), os.Getenv("TFE_TOKEN"), os.Getenv("TFE_WORKSPACE")
	organization := os.Getenv("TFE_ORGANIZATION")
	if address == "" || token == "" || workspace == "" || organization == "" {
		fail("set TFE_ADDRESS, TFE_TOKEN, TFE_ORGANIZATION and TFE_WORKSPACE")
	}
	ctx := context.Background()
	client, err := tfe.NewClient(&tfe.Config{Address: address, Token: token})
	if err != nil {
		fail("new client: %v", err)
	}
	if client.RemoteAPIVersion() == "" {
		fail("GET /api/v2/ping announced no TFP-API-Version")
	}

	me, err := client.Users.ReadCurrent(ctx)
	if err != nil {
		fail("read the current user: %v", err)
	}
	if !strings.HasPrefix(me.ID, "user-") || me.Username == "" || me.Email == "" {
		fail("the current user reads as %+v", me)
	}
	fmt.Printf("the token is %s's (%s)\n", me.Username, me.ID)
	org, err := client.Organizations.Read(ctx, organization)
	if err != nil {
		fail("read organization %s: %v", organization, err)
	}
	if org.Name != organization || org.CostEstimationEnabled || org.Permissions == nil || !org.Permissions.CanTraverse || org.CreatedAt.IsZero() {
		fail("organization %s reads as %+v", organization, org)
	}
	fmt.Printf("organization %s read (cost estimation %v)\n", org.Name, org.CostEstimationEnabled)
	byID, err := client.Workspaces.ReadByID(ctx, workspace)
	if err != nil {
		fail("read workspace %s: %v", workspace, err)
	}
	byName, err := client.Workspaces.Read(ctx, organization, byID.Name)
	if err != nil {
		fail("read workspace %s/%s: %v", organization, byID.Name, err)
	}
	if byName.ID != workspace || byName.Organization == nil || byName.Organization.Name != organization || byName.Locked || byName.TerraformVersion == "" {
		fail("workspace %s/%s reads as %+v", organization, byID.Name, byName)
	}
	fmt.Printf("workspace %s/%s is %s\n", organization, byName.Name, byName.ID)
	locked, err := client.Workspaces.Lock(ctx, workspace, tfe.WorkspaceLockOptions{Reason: tfe.String("go-tfe")})
	if err != nil || !locked.Locked {
		fail("lock the workspace: %v (%+v)", err, locked)
	}
	if _, err := client.Workspaces.Lock(ctx, workspace, tfe.WorkspaceLockOptions{}); err != tfe.ErrWorkspaceLocked {
		fail("locking a locked workspace gives %v, not %v", err, tfe.ErrWorkspaceLocked)
	}
	unlocked, err := client.Workspaces.Unlock(ctx, workspace)
	if err != nil || unlocked.Locked {
		fail("unlock the workspace: %v (%+v)", err, unlocked)
	}
	if _, err := client.Workspaces.Unlock(ctx, workspace); err != tfe.ErrWorkspaceNotLocked {
		fail("unlocking an unlocked workspace gives %v, not %v", err, tfe.ErrWorkspaceNotLocked)
	}
	if _, err := client.Workspaces.Lock(ctx, workspace, tfe.WorkspaceLockOptions{}); err != nil {
		fail("lock the workspace again: %v", err)
	}
	forced, err := client.Workspaces.ForceUnlock(ctx, workspace)
	if err != nil || forced.Locked {
		fail("force-unlock the workspace: %v (%+v)", err, forced)
	}
	if _, err := client.Workspaces.ForceUnlock(ctx, workspace); err != tfe.ErrWorkspaceNotLocked {
		fail("force-unlocking an unlocked workspace gives %v, not %v", err, tfe.ErrWorkspaceNotLocked)
	}
	fmt.Println("workspace locked, unlocked and force-unlocked")

	cv, err := client.ConfigurationVersions.Create(ctx, workspace, tfe.ConfigurationVersionCreateOptions{AutoQueueRuns: tfe.Bool(false)})
	if err != nil {
		fail("create configuration version: %v", err)
	}
	dir, err := ioutil.TempDir("", "go-tfe-config")
	if err != nil {
		fail("temp dir: %v", err)
	}
	defer os.RemoveAll(dir)
	// A module path longer than 100 bytes: Go's tar writer puts its start in the ustar prefix field.
	module := filepath.Join("modules", strings.Repeat("network", 8), strings.Repeat("subnets", 8))
	packed := []string{"main.tf", filepath.ToSlash(filepath.Join(module, "variables.tf"))}
	if err := os.MkdirAll(filepath.Join(dir, module), 0o755); err != nil {
		fail("mkdir module: %v", err)
	}
	for _, path := range packed {
		if err := ioutil.WriteFile(filepath.Join(dir, path), []byte("resource \"null_resource\" \"x\" {}\n"), 0o644); err != nil {
			fail("write %s: %v", path, err)
		}
	}
	if err := client.ConfigurationVersions.Upload(ctx, cv.UploadURL, dir); err != nil {
		fail("upload: %v", err)
	}
	for i := 0; ; i++ {
		read, err := client.ConfigurationVersions.Read(ctx, cv.ID)
		if err != nil {
			fail("read configuration version: %v", err)
		}
		if read.Status == tfe.ConfigurationUploaded {
			break
		}
		if i > 50 {
			fail("configuration version stays %s", read.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Printf("configuration version %s uploaded\n", cv.ID)
	checkUploadedFiles(address, packed)

	run, err := client.Runs.Create(ctx, tfe.RunCreateOptions{Workspace: &tfe.Workspace{ID: workspace}, Message: tfe.String("go-tfe")})
	if err != nil {
		fail("create run without a configuration version: %v", err)
	}
	if run.ConfigurationVersion == nil || run.ConfigurationVersion.ID != cv.ID {
		fail("run %s does not use the latest configuration version %s", run.ID, cv.ID)
	}
	fmt.Printf("run %s created on %s\n", run.ID, run.ConfigurationVersion.ID)
	held, err := client.Workspaces.ReadByID(ctx, workspace)
	if err != nil || !held.Locked {
		fail("the workspace is not locked by run %s: %v (%+v)", run.ID, err, held)
	}
	// go-tfe 0.11.1 reads every 409 of unlock as ErrWorkspaceNotLocked (newer ones: ErrWorkspaceLockedByRun).
	if _, err := client.Workspaces.Unlock(ctx, workspace); err != tfe.ErrWorkspaceNotLocked {
		fail("unlocking a workspace a run holds gives %v", err)
	}
	fmt.Printf("run %s holds the workspace lock\n", run.ID)

	waitFor := func(status tfe.RunStatus) {
		for i := 0; ; i++ {
			read, err := client.Runs.Read(ctx, run.ID)
			if err != nil {
				fail("read run: %v", err)
			}
			if read.Status == status {
				return
			}
			if i > 30 || read.Status == tfe.RunErrored || read.Status == tfe.RunCanceled {
				fail("run %s is %s, waiting for %s", run.ID, read.Status, status)
			}
			advance(address, "1m")
		}
	}
	// Wait for the plan to run (one simulated second at a time), then read its log while it runs.
	read, err := client.Runs.Read(ctx, run.ID)
	if err != nil {
		fail("read run: %v", err)
	}
	for i := 0; ; i++ {
		plan, err := client.Plans.Read(ctx, read.Plan.ID)
		if err != nil {
			fail("read plan: %v", err)
		}
		if plan.Status == tfe.PlanRunning {
			break
		}
		if i > 60 {
			fail("plan %s is %s, waiting for running", plan.ID, plan.Status)
		}
		advance(address, "1s")
	}
	planLog := make(chan string, 1)
	go func() {
		reader, err := client.Plans.Logs(ctx, read.Plan.ID)
		if err != nil {
			fail("plan logs: %v", err)
		}
		text, err := ioutil.ReadAll(reader)
		if err != nil {
			fail("read the plan log: %v", err)
		}
		planLog <- string(text)
	}()
	time.Sleep(1500 * time.Millisecond) // the reader has polled the running plan's partial log
	waitFor(tfe.RunPlanned)
	fmt.Printf("run %s planned\n", run.ID)
	select {
	case text := <-planLog:
		if !strings.Contains(text, "Plan: 1 to add, 0 to change, 0 to destroy.") {
			fail("the plan log does not say 1 to add:\n%s", text)
		}
	case <-time.After(30 * time.Second):
		fail("the plan log reader did not finish")
	}
	plan, err := client.Plans.Read(ctx, read.Plan.ID)
	if err != nil {
		fail("read plan: %v", err)
	}
	if plan.ResourceAdditions != 1 || plan.ResourceChanges != 0 || plan.ResourceDestructions != 0 || plan.StatusTimestamps.StartedAt.IsZero() {
		fail("plan %s: %d to add, %d to change, %d to destroy, started at %v", plan.ID, plan.ResourceAdditions, plan.ResourceChanges, plan.ResourceDestructions, plan.StatusTimestamps.StartedAt)
	}
	fmt.Printf("plan %s log read while running: 1 to add, 0 to change, 0 to destroy\n", plan.ID)
	if err := client.Runs.Apply(ctx, run.ID, tfe.RunApplyOptions{Comment: tfe.String("ship it")}); err != nil {
		fail("apply: %v", err)
	}
	waitFor(tfe.RunApplied)
	fmt.Printf("run %s applied\n", run.ID)
	reader, err := client.Applies.Logs(ctx, read.Apply.ID)
	if err != nil {
		fail("apply logs: %v", err)
	}
	text, err := ioutil.ReadAll(reader)
	if err != nil {
		fail("read the apply log: %v", err)
	}
	if !strings.Contains(string(text), "Apply complete! Resources: 1 added, 0 changed, 0 destroyed.") {
		fail("the apply log does not say 1 added:\n%s", text)
	}
	fmt.Printf("apply %s log: 1 added, 0 changed, 0 destroyed\n", read.Apply.ID)
}
