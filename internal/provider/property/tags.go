package property

// Tags returns the user's tags of props (the "tags" property; values that
// are not strings are left out) with extra added over them: the start of
// the full tag or label set an adapter writes, before its system keys.
func Tags(props map[string]any, extra map[string]string) map[string]string {
	t := map[string]string{}
	if ut, ok := props["tags"].(map[string]any); ok {
		for k, v := range ut {
			if s, ok := v.(string); ok {
				t[k] = s
			}
		}
	}
	for k, v := range extra {
		t[k] = v
	}
	return t
}

// SetTags sets props["tags"] to the tags of t whose keys system does not
// claim, as Read reports them, and leaves it unset when there are none (so
// it compares equal to an absent property). It returns props.
func SetTags(props map[string]any, t map[string]string, system func(key string) bool) map[string]any {
	user := map[string]any{}
	for k, v := range t {
		if !system(k) {
			user[k] = v
		}
	}
	if len(user) > 0 {
		props["tags"] = user
	}
	return props
}
