package codec

// SkeletonHits is how many payloads d read against a skeleton.
func SkeletonHits(d *Doc) int { return d.skel.hits }
