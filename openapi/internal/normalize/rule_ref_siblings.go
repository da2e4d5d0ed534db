package normalize

import (
	"encoding/json"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// refSiblings drops keywords written beside a $ref ({"$ref": X, "default": null},
// {"$ref": X, "description": …}). OpenAPI 3.1 allows them, ogen reads some as
// the referenced schema's own (an object default it cannot generate); the
// referenced component keeps its own keywords.
func refSiblings(d *Doc) error {
	for _, n := range d.RefNodes() {
		raw, err := json.Marshal(n.Ref)
		if err != nil {
			return err
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			continue // not an object: nothing beside the $ref
		}
		var dropped []string
		for _, k := range walk.SortedKeys(m) {
			if k != "$ref" && !strings.HasPrefix(k, "x-") {
				dropped = append(dropped, k)
			}
		}
		if len(dropped) == 0 {
			continue
		}
		*n.Ref = openapi3.SchemaRef{Ref: n.Ref.Ref, Value: n.Ref.Value, Extensions: n.Ref.Extensions}
		d.Hit(n, "dropped %s beside $ref", strings.Join(dropped, ", "))
	}
	return nil
}
