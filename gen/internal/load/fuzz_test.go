package load

import "testing"

// The fuzz targets check that no input panics and that a result is either
// usable or an error. Run longer with, e.g.:
//
//	go test ./gen/internal/load -fuzz FuzzLoadClassification -fuzztime 30s

func FuzzLoadSnapshot(f *testing.F) {
	f.Add([]byte(`{"tools": [` + tool0 + `]}`))
	f.Add([]byte(`{"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"anyOf": [true, {"$ref": "#/definitions/y"}]}}}}]}`))
	f.Add([]byte(deepSchema(3)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, diags := LoadSnapshot("s.json", data)
		if (s == nil) != (diags.Err() != nil) {
			t.Fatalf("snapshot %v with diagnostics %v", s, diags)
		}
		if s != nil {
			for _, tool := range s.Tools {
				if tool.InputSchema == nil || tool.Name == "" {
					t.Fatalf("bad tool %+v", tool)
				}
			}
		}
	})
}

func FuzzLoadClassification(f *testing.F) {
	f.Add([]byte(goodClassification))
	f.Add([]byte(header + "  x: {access: write, confirm: {prompt: \"{a}\", ttl: 1m}}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, diags := LoadClassification("c.yaml", data)
		if (c == nil) != (diags.Err() != nil) {
			t.Fatalf("classification %v with diagnostics %v", c, diags)
		}
		if c == nil {
			return
		}
		for _, e := range c.Tools {
			if e.Access != AccessRead && e.Access != AccessWrite {
				t.Fatalf("entry %q without access", e.Name)
			}
			if e.Access == AccessRead && e.Confirm != nil {
				t.Fatalf("read %q with a confirm", e.Name)
			}
		}
	})
}
