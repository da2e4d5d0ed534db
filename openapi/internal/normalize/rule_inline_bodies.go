package normalize

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// inlineBodies moves an operation's JSON request body or JSON 200 response,
// when the spec writes its schema inline, into a component: the shape
// tables name each payload (codec.Payload) by component, and ogen, which
// generates no client or server here, makes no type for an inline body.
// OpenAI writes the body of POST /conversations/{conversation_id}/items
// ({"items": […]}) inline.
//
// The new component is named by the schema's title, else by the
// operation's operationId ("createConversationItems" →
// CreateConversationItemsRequest, …Response), else by its method and path;
// a name already taken gets a number.
func inlineBodies(d *Doc) error {
	for _, op := range walk.Operations(d.T) {
		base := "/paths/" + walk.Escape(op.Path) + "/" + strings.ToLower(op.Method)
		if rb := op.Op.RequestBody; rb != nil && rb.Value != nil {
			d.inlineBody(op, rb.Value.Content, base+"/requestBody", "Request")
		}
		if op.Op.Responses != nil {
			if r := op.Op.Responses.Status(200); r != nil && r.Value != nil {
				d.inlineBody(op, r.Value.Content, base+"/responses/200", "Response")
			}
		}
	}
	return nil
}

func (d *Doc) inlineBody(op walk.Operation, c openapi3.Content, ptr, suffix string) {
	m := c.Get("application/json")
	if m == nil || m.Schema == nil || m.Schema.Ref != "" || m.Schema.Value == nil {
		return
	}
	name := walk.GoName(m.Schema.Value.Title)
	if name == "" {
		name = walk.GoName(op.Op.OperationID)
		if name == "" {
			name = walk.GoName(strings.ToLower(op.Method) + " " + op.Path)
		}
		name += suffix
	}
	ref := d.AddComponent(name, m.Schema.Value)
	slot := m.Schema
	*slot = *ref
	d.Hit(Node{Ref: slot, Pointer: ptr + "/content/application~1json/schema"}, "inline body schema moved to component %s", walk.ComponentName(ref.Ref))
}
