package codec

import "testing"

func TestDocParse(t *testing.T) {
	var d Doc
	v, ok := d.Parse([]byte(` {"type":"a","n":[1,{"x":"y\"z"}]} `))
	if !ok {
		t.Fatal("valid JSON refused")
	}
	if s, _ := v.Get("type").Str(); s != "a" {
		t.Fatalf("type = %q", s)
	}
	if got := string(v.Get("n").Raw()); got != `[1,{"x":"y\"z"}]` {
		t.Fatalf("n = %s", got)
	}
	if _, ok := d.Parse([]byte(`{"type":`)); ok {
		t.Fatal("truncated JSON accepted")
	}
	data := []byte(`{"type":"response.output_text.delta","output_index":0,"delta":"words"}`)
	if n := testing.AllocsPerRun(100, func() {
		v, _ := d.Parse(data)
		_ = v.Get("delta")
	}); n != 0 {
		t.Fatalf("Parse allocates %v times", n)
	}
}
