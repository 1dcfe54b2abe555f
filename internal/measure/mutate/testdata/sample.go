package sample

func rule(a, b int, s string, ok bool) bool {
	if a < b && !ok {
		return true
	}
	n := a + b
	s = s + "x"
	use(s)
	switch {
	case a >= n || a == b:
		b = 2
	}
	return false
}

func use(string) {}

func untouched(a int) bool { return a > 1 }
