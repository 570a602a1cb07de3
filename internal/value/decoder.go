package value

// Decoder reads one JSON document a piece at a time, for callers that know
// its shape (a state file, a simulator object) and decode it straight into
// their own types: an object is read field by field, without the map
// ParseJSON would build for it only to be read once and dropped. Value
// reads any value into the canonical model, exactly as ParseJSON does, and
// syntax errors are ParseJSON's. Strings are interned as ParseJSONWith
// interns them.
//
// The caller reads every value it is handed (Object's field, Array's elem)
// with exactly one of Value, String, Null, Object or Array. A Decoder is
// used by one goroutine at a time.
type Decoder struct {
	p     jsonParser
	depth int
}

// NewDecoder returns a Decoder reading data; known is ParseJSONWith's
// vocabulary (nil for none).
func NewDecoder(data []byte, known map[string]string) *Decoder {
	d := &Decoder{p: jsonParser{data: data, known: known}}
	if len(data) >= internMin {
		d.p.strs = make(map[string]string, 256)
	}
	d.p.space()
	return d
}

// Next returns the first byte of the next value ('{', '[', '"', 'n' for
// null, 't', 'f', or a number's first), or 0 at the end of the data.
func (d *Decoder) Next() byte {
	if d.p.i >= len(d.p.data) {
		return 0
	}
	return d.p.data[d.p.i]
}

// Value reads the next value into the canonical model.
func (d *Decoder) Value() (any, error) {
	v, err := d.p.value(d.depth)
	if err == nil {
		d.p.space()
	}
	return v, err
}

// String reads the next value when it is a string (ok true). Otherwise it
// reads nothing and returns ok false: the caller reads the value (with
// Value, say, to name its kind in an error).
func (d *Decoder) String() (s string, ok bool, err error) {
	if d.Next() != '"' {
		return "", false, nil
	}
	if s, err = d.p.str(); err != nil {
		return "", false, err
	}
	d.p.space()
	return s, true, nil
}

// Null reads the next value when it is null and reports whether it was.
func (d *Decoder) Null() (bool, error) {
	if d.Next() != 'n' {
		return false, nil
	}
	if err := d.p.literal("null"); err != nil {
		return false, err
	}
	d.p.space()
	return true, nil
}

// Object reads an object (the next value must be one: check Next), calling
// field with each key in document order, a repeated key included; field
// reads the key's value.
func (d *Decoder) Object(field func(key string) error) error {
	if d.depth++; d.depth > maxDepth {
		return &SyntaxError{Offset: d.p.i, msg: "exceeded max depth"}
	}
	defer func() { d.depth-- }()
	p := &d.p
	if p.open('}') {
		p.space()
		return nil
	}
	for {
		k, err := p.key()
		if err != nil {
			return err
		}
		if err := field(k); err != nil {
			return err
		}
		if done, err := p.next('}', "after object key:value pair"); done || err != nil {
			p.space()
			return err
		}
	}
}

// Array reads an array (the next value must be one: check Next), calling
// elem for each element in order; elem reads it.
func (d *Decoder) Array(elem func() error) error {
	if d.depth++; d.depth > maxDepth {
		return &SyntaxError{Offset: d.p.i, msg: "exceeded max depth"}
	}
	defer func() { d.depth-- }()
	p := &d.p
	if p.open(']') {
		p.space()
		return nil
	}
	for {
		if p.i >= len(p.data) {
			return p.fail("")
		}
		if err := elem(); err != nil {
			return err
		}
		if done, err := p.next(']', "after array element"); done || err != nil {
			p.space()
			return err
		}
	}
}

// End reports an error unless everything has been read (white space
// aside), as ParseJSON does after the top-level value.
func (d *Decoder) End() error {
	d.p.space()
	if d.p.i < len(d.p.data) {
		return d.p.fail("after top-level value")
	}
	return nil
}
