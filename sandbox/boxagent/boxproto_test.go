package boxagent

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"
)

// frame is one frame of the protocol: its length, its kind, its payload.
func frame(kind byte, payload string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(1+len(payload)))
	return append(append(b, kind), payload...)
}

// FuzzBoxReply feeds the host's decoder what a hostile box may send: it
// returns an error or a frame, never panics, and never reads past what a
// frame's length allows.
func FuzzBoxReply(f *testing.F) {
	f.Add(frame(FrameOutput, "hello"))
	f.Add(append(frame(FrameStarted, `{"pid":2}`), frame(FrameExit, `{"code":0}`)...))
	f.Add(frame(FrameExit, `{"code":1,"timed_out":true,"err":"x"}`))
	f.Add(frame(FramePipeEnd, ""))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 'O'})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for range len(b) + 1 {
			rep, err := ReadReply(r)
			if err != nil {
				return
			}
			if len(rep.Data) > MaxChunk || len(rep.Exit.Err) > MaxExitErr || (rep.Kind == FrameExit && (rep.Exit.Code < -1 || rep.Exit.Code > 255)) {
				t.Fatalf("a reply past its bounds: %+v", rep)
			}
		}
	})
}
