package topic

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// ID is the topic's TopicId as Kafka prints it (Uuid.toString: the 16 bytes
// of a version-4 UUID, base64url without padding, never starting with '-').
// Kafka draws a random UUID when the topic is created and stores it in the
// metadata log; MiniKafka derives it from the name, so that the same script
// prints the same id every time and metadata.json keeps its format.
func ID(name string) string {
	for i := 0; ; i++ {
		sum := sha256.Sum256([]byte("minikafka topic id\x00" + name + "\x00" + strconv.Itoa(i)))
		b := sum[:16]
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // IETF variant
		id := base64.RawURLEncoding.EncodeToString(b)
		if !strings.HasPrefix(id, "-") {
			return id
		}
	}
}
