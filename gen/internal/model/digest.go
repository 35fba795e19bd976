package model

import "github.com/ocpgen/ocpgen/internal/impl"

// Descriptor returns the descriptor that the generated code holds for t,
// which the emitter prints field by field and Package.Digest covers.
func (t *Tool) Descriptor() *impl.Descriptor {
	kind := impl.KindWrite
	if t.Kind == Read {
		kind = impl.KindRead
	}
	d := &impl.Descriptor{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  string(t.CanonicalSchema),
		Fingerprint:  t.Fingerprint,
		OutputSchema: string(t.CanonicalOutputSchema),
		Policy: impl.Policy{
			Kind:       kind,
			Classified: t.Classified,
			Tier:       t.Policy.Tier,
			Scopes:     t.Policy.Scopes,
			Resource:   Template(t.Policy.ResourceSegments),
			ConfirmTTL: t.Policy.ConfirmTTL,
			Failure:    t.Policy.Failure,
		},
		Hints:            impl.ServerHints{Title: t.Hints.Title, ReadOnly: t.Hints.ReadOnly, Destructive: t.Hints.Destructive, Idempotent: t.Hints.Idempotent, OpenWorld: t.Hints.OpenWorld},
		TaskSupport:      t.TaskSupport,
		IconsFingerprint: t.IconsFingerprint,
		MetaFingerprint:  t.MetaFingerprint,
	}
	if t.Kind == Write {
		d.Policy.ConfirmPrompt = Template(t.Policy.PromptSegments)
	}
	return d
}

// Template returns bound segments in the runtime's form: a field's segment
// names the field's JSON name.
func Template(segs []Segment) impl.Template {
	out := make(impl.Template, len(segs))
	for i, sg := range segs {
		out[i] = impl.Segment{Text: sg.Text, Mode: sg.Mode}
		if sg.Field != nil {
			out[i].Arg = sg.Field.JSONName
		}
	}
	return out
}

func (p *Package) digest() string {
	descs := make([]*impl.Descriptor, len(p.Tools))
	for i, t := range p.Tools {
		descs[i] = t.Descriptor()
	}
	return impl.Digest(p.Tiers, descs...)
}
