package normalize

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/transponder-dev/transponder/openapi/internal/walk"
)

// inlineEvents moves an event-stream response's event schema into a
// component when the spec writes it inline: the event itself ({"data":
// {"oneOf": […]}} in the operation, or a chunk object written inside its
// {"data": …} envelope). The codec's shape tables name the request, body
// and event schemas of each operation by component, and a union's variants
// are found again in ogen's output only by their component names.
//
// The new component is named, in this order, by the event schema's title,
// by the one wire value of its "type" property, or after the operation's
// path ("/chat/completions" → ChatCompletionsStreamEvent); a name already
// taken gets a number.
func inlineEvents(d *Doc) error {
	d.responses(func(op walk.Operation, base string, r *openapi3.Response) {
		for _, ct := range []string{StreamMediaType, "text/event-stream"} {
			m := r.Content[ct]
			if m == nil || m.Schema == nil {
				continue
			}
			ptr := base + "/content/" + walk.Escape(ct) + "/schema"
			slot, component := m.Schema, ""
			if env := d.Resolve(m.Schema); env != nil && len(env.Properties) == 1 && env.Properties["data"] != nil {
				// The {"data": …} envelope: the data line is the event.
				if m.Schema.Ref != "" {
					component = walk.ComponentName(m.Schema.Ref)
					ptr = "/components/schemas/" + walk.Escape(component)
				}
				slot, ptr = env.Properties["data"], ptr+"/properties/data"
				if v := slot.Value; slot.Ref == "" && v != nil && len(v.AnyOf) == 2 && v.AnyOf[1].Ref == "" && v.AnyOf[1].Value != nil &&
					v.AnyOf[1].Value.Type.Is(openapi3.TypeNull) {
					slot, ptr = v.AnyOf[0], ptr+"/anyOf/0"
				}
			}
			if slot.Ref != "" || slot.Value == nil {
				continue
			}
			ref := d.AddComponent(d.eventName(slot.Value, op.Path), slot.Value)
			*slot = *ref
			d.Hit(Node{Ref: slot, Component: component, Pointer: ptr}, "inline event schema moved to component %s", walk.ComponentName(ref.Ref))
		}
	})
	return nil
}

// eventName names an inline event schema: its title, else its one "type"
// value, else after the operation's path.
func (d *Doc) eventName(s *openapi3.Schema, path string) string {
	if name := walk.GoName(s.Title); name != "" {
		return name
	}
	if v := d.discriminatorValues(s, "type", 0); len(v) == 1 && walk.GoName(v[0]) != "" {
		return walk.GoName(v[0]) + "Event"
	}
	return walk.GoName(path) + "StreamEvent"
}
