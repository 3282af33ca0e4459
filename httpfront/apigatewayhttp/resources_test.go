package apigatewayhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"

	"github.com/cloudemu/emulator/server/servertest"
)

// resAPI creates a REST API and returns its id and its root resource's.
func resAPI(t *testing.T, c *apigateway.Client) (string, string) {
	t.Helper()
	out, err := c.CreateRestApi(context.Background(), &apigateway.CreateRestApiInput{Name: aws.String("tree")})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Id), aws.ToString(out.RootResourceId)
}

// resCreate creates a resource and returns its id.
func resCreate(t *testing.T, c *apigateway.Client, api, parent, part string) string {
	t.Helper()
	out, err := c.CreateResource(context.Background(), &apigateway.CreateResourceInput{
		RestApiId: aws.String(api), ParentId: aws.String(parent), PathPart: aws.String(part)})
	if err != nil {
		t.Fatalf("create %s: %v", part, err)
	}
	return aws.ToString(out.Id)
}

// resPaths returns the API's resources as path -> id, and checks the list
// is ordered by path.
func resPaths(t *testing.T, c *apigateway.Client, api string) map[string]string {
	t.Helper()
	out, err := c.GetResources(context.Background(), &apigateway.GetResourcesInput{RestApiId: aws.String(api)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Position != nil {
		t.Fatalf("GetResources returned a position: %q", *out.Position)
	}
	m := map[string]string{}
	var order []string
	for _, r := range out.Items {
		m[aws.ToString(r.Path)] = aws.ToString(r.Id)
		order = append(order, aws.ToString(r.Path))
	}
	if !slices.IsSorted(order) {
		t.Fatalf("resources not ordered by path: %v", order)
	}
	return m
}

// resRaw sends a request the SDK would not send and returns the status,
// the error type header and the body.
func resRaw(t *testing.T, srv *servertest.Server, method, path, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("x-amzn-ErrorType"), string(b)
}

// resWantRaw fails unless a raw request answers status and exactly body
// (for an error, the message is compared).
func resWantRaw(t *testing.T, srv *servertest.Server, method, path, body string, status int, want string) {
	t.Helper()
	st, code, got := resRaw(t, srv, method, path, body)
	if st >= 400 {
		var e map[string]string
		_ = json.Unmarshal([]byte(got), &e)
		msg := e["message"]
		if msg == "" {
			msg = e["Message"]
		}
		got = code + ": " + msg
	}
	if st != status || got != want {
		t.Fatalf("%s %s: want %d %s\ngot  %d %s", method, path, status, want, st, got)
	}
}

func TestResourceLifecycle(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api, root := resAPI(t, c)

	// The root alone: no parentId, no pathPart.
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources", "", 200, `{"item":[{"id":"`+root+`","path":"/"}]}`)

	pets, err := c.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: &api, ParentId: &root, PathPart: aws.String("pets")})
	if err != nil {
		t.Fatal(err)
	}
	petsID := aws.ToString(pets.Id)
	if len(petsID) < 6 || aws.ToString(pets.ParentId) != root || aws.ToString(pets.Path) != "/pets" || aws.ToString(pets.PathPart) != "pets" {
		t.Fatalf("create: %+v", pets)
	}
	sub := resCreate(t, c, api, petsID, "subpets")
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources/"+sub, "", 200,
		fmt.Sprintf(`{"id":"%s","parentId":"%s","pathPart":"subpets","path":"/pets/subpets"}`, sub, petsID))

	// Renaming recomputes the paths below.
	upd, err := c.UpdateResource(ctx, &apigateway.UpdateResourceInput{RestApiId: &api, ResourceId: &petsID,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/pathPart"), Value: aws.String("dogs")}}})
	if err != nil || aws.ToString(upd.Path) != "/dogs" || aws.ToString(upd.PathPart) != "dogs" {
		t.Fatalf("rename: %v %+v", err, upd)
	}
	if got := resPaths(t, c, api); got["/dogs/subpets"] != sub || len(got) != 3 {
		t.Fatalf("after rename: %v", got)
	}

	// Moving to the root: /dogs/subpets -> /subpets.
	moved, err := c.UpdateResource(ctx, &apigateway.UpdateResourceInput{RestApiId: &api, ResourceId: &sub,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/parentId"), Value: &root}}})
	if err != nil || aws.ToString(moved.Path) != "/subpets" || aws.ToString(moved.ParentId) != root {
		t.Fatalf("move: %v %+v", err, moved)
	}

	// Deleting /dogs leaves /subpets, which moved out from under it.
	if _, err := c.DeleteResource(ctx, &apigateway.DeleteResourceInput{RestApiId: &api, ResourceId: &petsID}); err != nil {
		t.Fatal(err)
	}
	if got := resPaths(t, c, api); len(got) != 2 || got["/subpets"] != sub {
		t.Fatalf("after delete: %v", got)
	}
	_, err = c.GetResource(ctx, &apigateway.GetResourceInput{RestApiId: &api, ResourceId: &petsID})
	servertest.WantAPIError(t, err, "NotFoundException", "Invalid Resource identifier specified")
}

func TestResourceDeleteSubtree(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api, root := resAPI(t, c)
	a := resCreate(t, c, api, root, "a")
	b := resCreate(t, c, api, a, "b")
	cc := resCreate(t, c, api, b, "{id}")
	keep := resCreate(t, c, api, root, "keep")
	for _, id := range []string{a, b, cc, keep} {
		if _, err := c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: &api, ResourceId: aws.String(id),
			HttpMethod: aws.String("GET"), AuthorizationType: aws.String("NONE")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: &api, ResourceId: &cc,
		HttpMethod: aws.String("GET"), Type: types.IntegrationTypeMock}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteResource(ctx, &apigateway.DeleteResourceInput{RestApiId: &api, ResourceId: &a}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a, b, cc} {
		_, err := c.GetMethod(ctx, &apigateway.GetMethodInput{RestApiId: &api, ResourceId: aws.String(id), HttpMethod: aws.String("GET")})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Resource identifier specified")
		_, err = c.DeleteResource(ctx, &apigateway.DeleteResourceInput{RestApiId: &api, ResourceId: aws.String(id)})
		servertest.WantAPIError(t, err, "NotFoundException", "Invalid Resource identifier specified")
	}
	// A new /a starts empty.
	a2 := resCreate(t, c, api, root, "a")
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources/"+a2, "", 200,
		fmt.Sprintf(`{"id":"%s","parentId":"%s","pathPart":"a","path":"/a"}`, a2, root))
	if _, err := c.GetMethod(ctx, &apigateway.GetMethodInput{RestApiId: &api, ResourceId: &keep, HttpMethod: aws.String("GET")}); err != nil {
		t.Fatalf("sibling's method: %v", err)
	}
}

func TestResourceMoveRecomputesDescendants(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	api, root := resAPI(t, c)
	a := resCreate(t, c, api, root, "a")
	b := resCreate(t, c, api, a, "b")
	cc := resCreate(t, c, api, b, "c")
	d := resCreate(t, c, api, cc, "{d+}")
	x := resCreate(t, c, api, root, "x")
	if _, err := c.UpdateResource(ctx, &apigateway.UpdateResourceInput{RestApiId: &api, ResourceId: &b,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/parentId"), Value: &x}}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/": root, "/a": a, "/x": x, "/x/b": b, "/x/b/c": cc, "/x/b/c/{d+}": d}
	if got := resPaths(t, c, api); !equalMaps(got, want) {
		t.Fatalf("after move: %v, want %v", got, want)
	}
	// Both at once: rename and move.
	if _, err := c.UpdateResource(ctx, &apigateway.UpdateResourceInput{RestApiId: &api, ResourceId: &b,
		PatchOperations: []types.PatchOperation{
			{Op: types.OpReplace, Path: aws.String("/parentId"), Value: &a},
			{Op: types.OpReplace, Path: aws.String("/pathPart"), Value: aws.String("bee")},
		}}); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{"/": root, "/a": a, "/x": x, "/a/bee": b, "/a/bee/c": cc, "/a/bee/c/{d+}": d}
	if got := resPaths(t, c, api); !equalMaps(got, want) {
		t.Fatalf("after rename and move: %v, want %v", got, want)
	}
	got, err := c.GetResource(ctx, &apigateway.GetResourceInput{RestApiId: &api, ResourceId: &d})
	if err != nil || aws.ToString(got.Path) != "/a/bee/c/{d+}" {
		t.Fatalf("get descendant: %v %+v", err, got)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestResourceErrors(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api, root := resAPI(t, c)
	pets := resCreate(t, c, api, root, "pets")
	sub := resCreate(t, c, api, pets, "subpets")
	subPets := resCreate(t, c, api, sub, "pets")
	proxy := resCreate(t, c, api, root, "{proxy+}")
	parent := resCreate(t, c, api, root, "parent")
	resCreate(t, c, api, parent, "{child+}")

	create := func(parent, part string) error {
		_, err := c.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: &api, ParentId: aws.String(parent), PathPart: aws.String(part)})
		return err
	}
	update := func(id string, ops ...types.PatchOperation) error {
		_, err := c.UpdateResource(ctx, &apigateway.UpdateResourceInput{RestApiId: &api, ResourceId: aws.String(id), PatchOperations: ops})
		return err
	}
	replace := func(path, value string) types.PatchOperation {
		return types.PatchOperation{Op: types.OpReplace, Path: aws.String(path), Value: aws.String(value)}
	}
	const badPart = "Resource's path part only allow a-zA-Z0-9._- and curly braces at the beginning and the end and an optional plus sign before the closing brace."
	for _, tc := range []struct {
		name, code, msg string
		err             error
	}{
		{"op=update-nonexistent-resource", "NotFoundException", "Invalid Resource identifier specified", update("fake-resource", replace("/pathPart", "dogs"))},
		{"op=update-invalid-path", "BadRequestException", "Invalid patch path  '/invalid' specified for op 'replace'. Must be one of: [/parentId, /pathPart]", update(pets, replace("/invalid", "dogs"))},
		{"op=update-missing-parent", "NotFoundException", "Invalid Resource identifier specified", update(pets, replace("/parentId", "fake-parent-id"))},
		{"op=update-move-onto-sibling-name", "ConflictException", "Another resource with the same parent already has this name: pets", update(subPets, replace("/parentId", root))},
		{"op=update-cyclical", "BadRequestException", "Resources cannot be cyclical.", update(pets, replace("/parentId", sub))},
		{"op=update-own-parent", "BadRequestException", "Resources cannot be cyclical.", update(pets, replace("/parentId", pets))},
		{"op=update-rename-onto-sibling", "ConflictException", "Another resource with the same parent already has this name: pets", update(parent, replace("/pathPart", "pets"))},
		{"op=update-remove", "BadRequestException", "Invalid patch path  '/pathPart' specified for op 'remove'. Please choose supported operations", update(sub, types.PatchOperation{Op: types.OpRemove, Path: aws.String("/pathPart")})},
		{"op=update-add", "BadRequestException", "Invalid patch path  '/pathPart' specified for op 'add'. Please choose supported operations", update(sub, types.PatchOperation{Op: types.OpAdd, Path: aws.String("/pathPart"), Value: aws.String("x")})},
		{"op=update-root-path-part", "BadRequestException", "Root resource cannot update its pathPart.", update(root, replace("/pathPart", "dogs"))},
		{"op=update-root-parent", "BadRequestException", "Root resource cannot update its parentId.", update(root, replace("/parentId", root))},
		{"op=update-bad-part", "BadRequestException", badPart, update(sub, replace("/pathPart", "a/b"))},
		{"op=update-under-greedy", "BadRequestException", "Cannot create a child of a resource with a greedy path variable: {proxy+}", update(sub, replace("/parentId", proxy))},
		{"op=update-greedy-with-children", "BadRequestException", "Cannot create a child of a resource with a greedy path variable: {x+}", update(sub, replace("/pathPart", "{x+}"))},
		{"op=update-wrong-op", "ValidationException", "1 validation error detected: Value 'wrong' at 'updateResourceInput.patchOperations.1.member.op' failed to satisfy constraint: Member must satisfy enum value set: [add, remove, move, test, replace, copy]", update(pets, types.PatchOperation{Op: "wrong", Path: aws.String("/pathPart")})},
		{"op=create-missing-parent", "NotFoundException", "Invalid Resource identifier specified", create("fake-resource-id", "subpets")},
		{"op=create-variable-beside-greedy", "BadRequestException", "A sibling ({proxy+}) of this resource already has a variable path part -- only one is allowed", create(root, "{dynamic}")},
		{"op=create-static-under-greedy", "BadRequestException", "Cannot create a child of a resource with a greedy path variable: {proxy+}", create(proxy, "child")},
		{"op=create-variable-under-greedy", "BadRequestException", "Cannot create a child of a resource with a greedy path variable: {proxy+}", create(proxy, "{child}")},
		{"op=create-sibling-same-name", "ConflictException", "Another resource with the same parent already has this name: pets", create(root, "pets")},
		{"op=create-slash", "BadRequestException", badPart, create(root, "users/")},
		{"op=create-leading-slash", "BadRequestException", badPart, create(root, "/users")},
		{"op=create-brace-inside", "BadRequestException", badPart, create(root, "us{er")},
		{"op=create-plus", "BadRequestException", badPart, create(root, "us+er")},
		{"op=create-dollar", "BadRequestException", badPart, create(root, "$metadata")},
		{"op=create-empty", "BadRequestException", badPart, create(root, "")},
		{"op=create-missing-api", "NotFoundException", "Invalid API identifier specified " + account + ":nope", func() error {
			_, err := c.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: aws.String("nope"), ParentId: &root, PathPart: aws.String("x")})
			return err
		}()},
		{"op=get-missing-api", "NotFoundException", "Invalid Resource identifier specified", func() error {
			_, err := c.GetResource(ctx, &apigateway.GetResourceInput{RestApiId: aws.String("nope"), ResourceId: &root})
			return err
		}()},
		{"op=list-missing-api", "NotFoundException", "Invalid API identifier specified " + account + ":nope", func() error {
			_, err := c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: aws.String("nope")})
			return err
		}()},
		{"op=delete-root", "BadRequestException", "Root resource cannot be deleted.", func() error {
			_, err := c.DeleteResource(ctx, &apigateway.DeleteResourceInput{RestApiId: &api, ResourceId: &root})
			return err
		}()},
		{"op=list-bad-limit", "BadRequestException", "", func() error {
			_, err := c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: &api, Limit: aws.Int32(501)})
			return err
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) { servertest.WantAPIError(t, tc.err, tc.code, tc.msg) })
	}

	// Valid names, greedy ones with any name, and a colon.
	for _, part := range []string{"users", "{user_id}", "us:er_0-9", "a.b-c"} {
		resCreate(t, c, api, sub, part)
	}
	resCreate(t, c, api, pets, "{pro:xy+}")

	// What the SDK will not send.
	resWantRaw(t, srv, "POST", "/restapis/"+api+"/resources/"+root, `{}`, 400,
		"ValidationException: 1 validation error detected: Value null at 'createResourceInput.pathPart' failed to satisfy constraint: Member must not be null")
	resWantRaw(t, srv, "POST", "/restapis/"+api+"/resources/"+root, `{"pathPart": 5}`, 400,
		"SerializationException: class com.amazon.coral.value.json.numbers.TruncatingBigNumber can not be converted to an String")
	resWantRaw(t, srv, "PATCH", "/restapis/"+api+"/resources/"+pets, `{"patchOperations":[{"op":"replace","value":"x"}]}`, 400,
		"BadRequestException: Invalid patch path  'null' specified for op 'replace'. Must be one of: [/parentId, /pathPart]")
	resWantRaw(t, srv, "PATCH", "/restapis/"+api+"/resources/"+pets, `{"patchOperations":`, 400,
		"BadRequestException: The request body is not valid JSON")

	// Nothing failed changed anything.
	got := resPaths(t, c, api)
	for _, p := range []string{"/pets", "/pets/subpets", "/pets/subpets/pets", "/{proxy+}", "/parent", "/parent/{child+}"} {
		if got[p] == "" {
			t.Fatalf("%s missing after failed updates: %v", p, got)
		}
	}
}

func TestGetResourcesEmbed(t *testing.T) {
	srv, c := start(t)
	ctx := context.Background()
	api, root := resAPI(t, c)
	pets := resCreate(t, c, api, root, "pets")
	for _, m := range []string{"POST", "GET"} {
		if _, err := c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: &api, ResourceId: &pets,
			HttpMethod: aws.String(m), AuthorizationType: aws.String("NONE"), ApiKeyRequired: m == "POST"}); err != nil {
			t.Fatal(err)
		}
	}
	summary := fmt.Sprintf(`{"id":"%s","parentId":"%s","pathPart":"pets","path":"/pets","resourceMethods":{"GET":{},"POST":{}}}`, pets, root)
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources", "", 200,
		fmt.Sprintf(`{"item":[{"id":"%s","path":"/"},%s]}`, root, summary))
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources/"+pets, "", 200, summary)

	embedded := fmt.Sprintf(`{"id":"%s","parentId":"%s","pathPart":"pets","path":"/pets","resourceMethods":{`+
		`"GET":{"httpMethod":"GET","authorizationType":"NONE","apiKeyRequired":false},`+
		`"POST":{"httpMethod":"POST","authorizationType":"NONE","apiKeyRequired":true}}}`, pets, root)
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources/"+pets+"?embed=methods", "", 200, embedded)
	resWantRaw(t, srv, "GET", "/restapis/"+api+"/resources?embed=methods", "", 200,
		fmt.Sprintf(`{"item":[{"id":"%s","path":"/"},%s]}`, root, embedded))

	out, err := c.GetResources(ctx, &apigateway.GetResourcesInput{RestApiId: &api, Embed: []string{"methods"}})
	if err != nil || len(out.Items) != 2 || !aws.ToBool(out.Items[1].ResourceMethods["POST"].ApiKeyRequired) {
		t.Fatalf("embed via SDK: %v %+v", err, out)
	}
}

// TestGetResourcesMany builds an API of 500 resources and lists them all
// in one answer, ordered by path: GetResources does not paginate here
// (docs/apigateway.md, "Listings in one page").
func TestGetResourcesMany(t *testing.T) {
	_, c := start(t)
	api, root := resAPI(t, c)
	want := map[string]string{"/": root}
	parents := []string{root}
	parentPath := map[string]string{root: "/"}
	for i := 0; len(want) < 500; i++ {
		p := parents[i%len(parents)]
		part := fmt.Sprintf("r%03d", i)
		id := resCreate(t, c, api, p, part)
		path := strings.TrimSuffix(parentPath[p], "/") + "/" + part
		want[path] = id
		parentPath[id] = path
		if i%10 == 0 {
			parents = append(parents, id)
		}
	}
	start := time.Now()
	got := resPaths(t, c, api)
	if !equalMaps(got, want) {
		t.Fatalf("listed %d resources, want %d", len(got), len(want))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("listing 500 resources took %v", d)
	}
	// A limit is accepted and changes nothing.
	out, err := c.GetResources(context.Background(), &apigateway.GetResourcesInput{RestApiId: &api, Limit: aws.Int32(25)})
	if err != nil || len(out.Items) != 500 || out.Position != nil {
		t.Fatalf("with limit: %v %d", err, len(out.Items))
	}
}

func TestResourcePersistence(t *testing.T) {
	dir := t.TempDir()
	srv := servertest.Start(t, servertest.WithPersistence(dir))
	c := client(srv, "us-east-1", "test")
	ctx := context.Background()
	api, root := resAPI(t, c)
	a := resCreate(t, c, api, root, "a")
	b := resCreate(t, c, api, a, "b")
	gone := resCreate(t, c, api, root, "gone")
	resCreate(t, c, api, gone, "child")
	if _, err := c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: &api, ResourceId: &b, HttpMethod: aws.String("POST"),
		AuthorizationType: aws.String("NONE"), RequestParameters: map[string]bool{"method.request.header.x": true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutIntegration(ctx, &apigateway.PutIntegrationInput{RestApiId: &api, ResourceId: &b, HttpMethod: aws.String("POST"),
		Type: types.IntegrationTypeHttp, IntegrationHttpMethod: aws.String("GET"), Uri: aws.String("http://example.com/x"),
		RequestTemplates: map[string]string{"application/json": ""}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutMethodResponse(ctx, &apigateway.PutMethodResponseInput{RestApiId: &api, ResourceId: &b, HttpMethod: aws.String("POST"),
		StatusCode: aws.String("200"), ResponseParameters: map[string]bool{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutIntegrationResponse(ctx, &apigateway.PutIntegrationResponseInput{RestApiId: &api, ResourceId: &b, HttpMethod: aws.String("POST"),
		StatusCode: aws.String("200"), SelectionPattern: aws.String("")}); err != nil {
		t.Fatal(err)
	}
	// A move and a delete, so that the restored paths must come from the
	// records the move rewrote.
	if _, err := c.UpdateResource(ctx, &apigateway.UpdateResourceInput{RestApiId: &api, ResourceId: &a,
		PatchOperations: []types.PatchOperation{{Op: types.OpReplace, Path: aws.String("/pathPart"), Value: aws.String("z")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteResource(ctx, &apigateway.DeleteResourceInput{RestApiId: &api, ResourceId: &gone}); err != nil {
		t.Fatal(err)
	}
	methodPath := "/restapis/" + api + "/resources/" + b + "/methods/POST"
	_, _, before := resRaw(t, srv, "GET", methodPath, "")
	shutCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := srv.Emulator.Shutdown(shutCtx); err != nil {
		t.Fatal(err)
	}

	srv2 := servertest.Start(t, servertest.WithPersistence(dir))
	c2 := client(srv2, "us-east-1", "test")
	want := map[string]string{"/": root, "/z": a, "/z/b": b}
	if got := resPaths(t, c2, api); !equalMaps(got, want) {
		t.Fatalf("restored %v, want %v", got, want)
	}
	resWantRaw(t, srv2, "GET", methodPath, "", 200, before)
	if !strings.Contains(before, `"requestTemplates":{"application/json":null}`) || !strings.Contains(before, `"selectionPattern":""`) {
		t.Fatalf("method before restart: %s", before)
	}
	// The restored API takes changes.
	resCreate(t, c2, api, b, "c")
}

// BenchmarkGetResources lists an API of 500 resources (with a method on
// every tenth) through the real server.
func BenchmarkGetResources(b *testing.B) {
	srv := servertest.Start(b)
	c := client(srv, "us-east-1", "test")
	ctx := context.Background()
	out, err := c.CreateRestApi(ctx, &apigateway.CreateRestApiInput{Name: aws.String("bench")})
	if err != nil {
		b.Fatal(err)
	}
	api, parent := aws.ToString(out.Id), aws.ToString(out.RootResourceId)
	for i := range 499 {
		r, err := c.CreateResource(ctx, &apigateway.CreateResourceInput{RestApiId: &api, ParentId: &parent, PathPart: aws.String(fmt.Sprintf("r%03d", i))})
		if err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			if _, err := c.PutMethod(ctx, &apigateway.PutMethodInput{RestApiId: &api, ResourceId: r.Id,
				HttpMethod: aws.String("GET"), AuthorizationType: aws.String("NONE")}); err != nil {
				b.Fatal(err)
			}
		}
	}
	url := srv.URL + "/restapis/" + api + "/resources"
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n < 500*40 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
}
