package engine

import "fmt"

// plural counts a noun for the teaching trace: "1 batch", "2 batches",
// "0 batches".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
