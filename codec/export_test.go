package codec

// SkeletonHits is how many payloads d read against a skeleton.
func SkeletonHits(d *Doc) int { return d.skel.hits }

// SkeletonBytes is how many bytes of its last payload d keeps.
func SkeletonBytes(d *Doc) int { return len(d.skel.bytes) }
