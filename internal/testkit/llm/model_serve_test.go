package llm

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/coreagent/core/internal/testkit"
)

func TestServeModel(t *testing.T) {
	t.Parallel()
	t.Run("serves until ctx ends", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		s, err := ServeModel(ctx, "127.0.0.1:0", []Reply{ContentReply("hello")})
		if err != nil {
			t.Fatalf("ServeModel: %v", err)
		}
		client := openaiClient(s, "")
		resp, err := client.CreateChatCompletion(t.Context(), chatRequest("hi"))
		if err != nil || resp.Choices[0].Message.Content != "hello" {
			t.Fatalf("chat = %+v, %v; want hello", resp, err)
		}
		if len(s.Requests()) != 1 {
			t.Errorf("recorded %d requests, want 1", len(s.Requests()))
		}
		cancel()
		deadline := time.Now().Add(testkit.Patience)
		for {
			_, err := client.ListModels(t.Context())
			if err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("server still answering after ctx was cancelled")
			}
			time.Sleep(5 * time.Millisecond) // polling a test observation
		}
	})
	t.Run("fixed address", func(t *testing.T) {
		t.Parallel()
		addr := freeAddr(t)
		s, err := ServeModel(t.Context(), addr, nil)
		if err != nil {
			t.Fatalf("ServeModel: %v", err)
		}
		defer s.Close()
		if s.URL != "http://"+addr {
			t.Errorf("URL = %q, want http://%s", s.URL, addr)
		}
		if _, err := ServeModel(t.Context(), addr, nil); err == nil || !strings.Contains(err.Error(), addr) {
			t.Errorf("second ServeModel on %s: err = %v, want a listen error naming the address", addr, err)
		}
	})
	t.Run("close ends a pending delay", func(t *testing.T) {
		t.Parallel()
		s, err := ServeModel(t.Context(), "127.0.0.1:0", []Reply{ContentReply("x").After(time.Hour)})
		if err != nil {
			t.Fatalf("ServeModel: %v", err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := openaiClient(s, "").CreateChatCompletion(t.Context(), chatRequest("hi"))
			errc <- err
		}()
		arrived, stop := context.WithTimeout(t.Context(), testkit.Patience)
		defer stop()
		if err := s.WaitRequests(arrived, 1); err != nil {
			t.Fatal(err)
		}
		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(testkit.Patience):
			t.Fatal("Close blocked on a handler waiting out its delay")
		}
		if err := testkit.Receive(t, errc, "the request to end when the server closed"); err == nil {
			t.Error("request answered although the server closed during the delay")
		}
	})
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("close listener: %v", err)
	}
	return addr
}

func TestWaitRequests(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := ServeModel(ctx, "127.0.0.1:0", []Reply{{Delay: time.Hour, Content: "late"}})
	if err != nil {
		t.Fatalf("ServeModel: %v", err)
	}
	go func() { _, _ = openaiClient(s, "").CreateChatCompletion(ctx, chatRequest("hi")) }()
	if err := s.WaitRequests(t.Context(), 1); err != nil {
		t.Fatalf("WaitRequests(1) = %v; the delayed request counts on arrival", err)
	}
	short, stop := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer stop()
	if err := s.WaitRequests(short, 2); err == nil || !strings.Contains(err.Error(), "wait for 2 model requests") {
		t.Errorf("WaitRequests(2) = %v; want the context's end", err)
	}
}
