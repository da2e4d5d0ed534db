package codec

// SkeletonBytes is how many bytes of its last payload d keeps.
func SkeletonBytes(d *Doc) int { return len(d.skel.bytes) }
