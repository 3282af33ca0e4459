package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedUpToDate fails when operations_gen.go differs from what the
// models kept in the repository produce.
func TestGeneratedUpToDate(t *testing.T) {
	const models = "../../models/botocore"
	want, err := generate(models)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../operations_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("operations_gen.go is stale; run go generate in awswire")
	}
	rpc, err := generateRPCModels(models)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameRPCModels("../../rpcmodels", rpc); err != nil {
		t.Error(err)
	}
}

func TestMembersOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		want []member
	}{
		{"empty", `{}`, nil},
		{"order-kept", `{"Z":{},"A":{"locationName":"a"},"M":{"location":"header","locationName":"X-M"}}`,
			[]member{{Name: "Z"}, {Name: "A", LocationName: "a"}, {Name: "M", Location: "header", LocationName: "X-M"}}},
	} {
		t.Run("case="+tc.name, func(t *testing.T) {
			var got members
			if err := got.UnmarshalJSON([]byte(tc.json)); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("member %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
