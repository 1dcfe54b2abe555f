package sandbox

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/coreagent/core/sandbox/limit"
)

// The box's protocol (box.go, boxagent.go): one connection a command, on
// the agent's socket. Every message is a frame: a 4-byte big-endian length,
// then a kind byte and the payload; the length counts both. The host sends
// a request and then, for a background process, its pipe's input and a
// stop; the agent answers with the process's pid, its output, its pipe's
// output and its exit. The agent's side runs in the box, so the host reads
// it like any input from the workspace: frames longer than maxFrame, kinds
// the host does not expect and JSON with fields it does not know are
// errors, never a hang or a panic.
const (
	frameRequest  byte = 'R' // host → agent: boxRequest (JSON)
	frameInput    byte = 'I' // host → agent: bytes for the process's fd 3
	frameInputEnd byte = 'C' // host → agent: close the process's fd 3
	frameStop     byte = 'S' // host → agent: stop the process

	frameStarted byte = 'P' // agent → host: boxStarted (JSON)
	frameOutput  byte = 'O' // agent → host: the process's stdout and stderr
	framePipe    byte = 'D' // agent → host: what the process wrote on fd 4
	framePipeEnd byte = 'E' // agent → host: fd 4 is closed
	frameExit    byte = 'X' // agent → host: boxExit (JSON), the last frame
)

// maxFrame bounds a frame's kind and payload; maxChunk is the most data a
// frame carries.
const (
	maxFrame = 64 << 10
	maxChunk = maxFrame - 1
	// maxArgBytes bounds a request's argv and environment together.
	maxArgBytes = maxFrame - 1024
)

// boxRequest asks the agent to run one command.
type boxRequest struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	// Dir is the absolute working directory inside the box.
	Dir string `json:"dir"`
	// TimeoutMS kills the command and all it started when it runs out; 0 is
	// no limit.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// CeilingMS, when more than TimeoutMS, is the command's build
	// ceiling (RunOptions.BuildCeiling): the time it compiles does not
	// count against TimeoutMS.
	CeilingMS int64 `json:"ceiling_ms,omitempty"`
	// Pipe gives the process fd 3 (it reads) and fd 4 (it writes).
	Pipe bool `json:"pipe,omitempty"`
	// Nice runs the command and all it starts at limit.BackgroundNice: work done
	// ahead of need (RunOptions.Background), which then yields the CPUs to
	// the box's other commands, those someone waits for.
	Nice bool `json:"nice,omitempty"`
}

// boxStarted says the command started, and its pid inside the box.
type boxStarted struct {
	PID int `json:"pid"`
}

// boxExit says how the command ended: Code is its exit status, or 128 and
// the signal's number when a signal ended it (as bwrap reports it).
type boxExit struct {
	Code     int  `json:"code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// AtCeiling says the build ceiling, not the timeout, ended it;
	// BuiltMS is how long it compiled (Result.Built).
	AtCeiling bool   `json:"at_ceiling,omitempty"`
	BuiltMS   int64  `json:"built_ms,omitempty"`
	Err       string `json:"err,omitempty"`
	// Limit names the limit of the box's cgroup hit while the command
	// ran (limit.LimitMemory, limit.LimitProcesses), as the agent of a Docker box
	// sees its container's cgroup; the host reads the bwrap box's itself.
	Limit string `json:"limit,omitempty"`
}

// maxExitErr bounds the agent's words about a command that did not start.
const maxExitErr = 4 << 10

// writeFrame writes one frame.
func writeFrame(w io.Writer, kind byte, payload []byte) error {
	if len(payload) > maxChunk {
		return fmt.Errorf("box: a frame of %d bytes is over the limit of %d", len(payload), maxChunk)
	}
	buf := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(1+len(payload)))
	buf[4] = kind
	_, err := w.Write(append(buf, payload...))
	return err
}

// writeJSONFrame writes v as the payload of one frame.
func writeJSONFrame(w io.Writer, kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeFrame(w, kind, b)
}

// errFrame is what readFrame returns for a frame that breaks the protocol.
var errFrame = errors.New("box: a malformed frame")

// readFrame reads one frame whose kind is one of kinds. io.EOF means the
// peer closed the connection between frames.
func readFrame(r *bufio.Reader, kinds []byte) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:4]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("%w: cut in its length", errFrame)
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[:4])
	if n == 0 || n > maxFrame {
		return 0, nil, fmt.Errorf("%w: a length of %d (at most %d)", errFrame, n, maxFrame)
	}
	kind, err := r.ReadByte()
	if err != nil {
		return 0, nil, fmt.Errorf("%w: cut before its kind", errFrame)
	}
	if !slices.Contains(kinds, kind) {
		return 0, nil, fmt.Errorf("%w: kind %q is not expected here", errFrame, kind)
	}
	payload := make([]byte, n-1)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("%w: cut in its payload", errFrame)
	}
	return kind, payload, nil
}

// decodeStrict decodes one JSON value that fills b, refusing fields v does
// not have.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", errFrame, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value", errFrame)
	}
	return nil
}

// replyKinds are the frames the host accepts from the agent.
var replyKinds = []byte{frameStarted, frameOutput, framePipe, framePipeEnd, frameExit}

// reply is one decoded frame from the agent.
type reply struct {
	kind    byte
	data    []byte // frameOutput, framePipe
	started boxStarted
	exit    boxExit
}

// readReply reads and checks one frame from the agent: the host's decoder,
// which treats the box as hostile.
func readReply(r *bufio.Reader) (reply, error) {
	kind, payload, err := readFrame(r, replyKinds)
	if err != nil {
		return reply{}, err
	}
	rep := reply{kind: kind}
	switch kind {
	case frameOutput, framePipe:
		rep.data = payload
	case framePipeEnd:
		if len(payload) != 0 {
			return reply{}, fmt.Errorf("%w: the end of the pipe carries %d bytes", errFrame, len(payload))
		}
	case frameStarted:
		if err := decodeStrict(payload, &rep.started); err != nil {
			return reply{}, err
		}
		if rep.started.PID <= 0 {
			return reply{}, fmt.Errorf("%w: pid %d", errFrame, rep.started.PID)
		}
	case frameExit:
		if err := decodeStrict(payload, &rep.exit); err != nil {
			return reply{}, err
		}
		if len(rep.exit.Err) > maxExitErr {
			return reply{}, fmt.Errorf("%w: an error of %d bytes", errFrame, len(rep.exit.Err))
		}
		if c := rep.exit.Code; c < -1 || c > 255 {
			return reply{}, fmt.Errorf("%w: exit status %d", errFrame, c)
		}
		if l := rep.exit.Limit; l != "" && l != limit.LimitMemory && l != limit.LimitProcesses {
			return reply{}, fmt.Errorf("%w: a limit %.40q core does not know", errFrame, l)
		}
	}
	return rep, nil
}

// readRequest is the agent's decoder of the host's request.
func readRequest(r *bufio.Reader) (boxRequest, error) {
	_, payload, err := readFrame(r, []byte{frameRequest})
	if err != nil {
		return boxRequest{}, err
	}
	var req boxRequest
	if err := decodeStrict(payload, &req); err != nil {
		return boxRequest{}, err
	}
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return boxRequest{}, fmt.Errorf("%w: no command", errFrame)
	}
	if req.Dir == "" || req.Dir[0] != '/' {
		return boxRequest{}, fmt.Errorf("%w: the directory %q is not absolute", errFrame, req.Dir)
	}
	return req, nil
}
