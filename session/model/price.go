package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// maxModelList bounds the /v1/models answer Price reads.
const maxModelList = 4 << 20

// Price asks the server what the model's tokens cost, in dollars per
// million prompt and completion tokens. OpenAI's own list carries no
// price; the convention read here is OpenRouter's (and its imitators'):
// each model of GET /v1/models has "pricing": {"prompt": "0.0000005",
// "completion": "0.0000015"}, dollars per token as decimal strings. ok is
// false when the server lists no price for the model (a local server
// never does). A server that lists one model answers for it whatever name
// was asked.
func (c *Client) Price(ctx context.Context) (in, out float64, ok bool, err error) {
	if c.configErr != nil {
		return 0, 0, false, c.configErr
	}
	hc := c.hc
	if hc == nil {
		hc = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint+"/models", nil)
	if err != nil {
		return 0, 0, false, fmt.Errorf("ask %s for its prices: %w", c.endpoint, err)
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, 0, false, fmt.Errorf("ask %s for its prices: %w", c.endpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, false, nil
	}
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			Pricing *struct {
				Prompt     json.RawMessage `json:"prompt"`
				Completion json.RawMessage `json:"completion"`
			} `json:"pricing"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelList)).Decode(&list); err != nil {
		return 0, 0, false, nil // not a list we understand: no price
	}
	for i, m := range list.Data {
		// The model asked for, or the one model of a server that serves
		// one whatever its name (llama-server).
		if (m.ID != c.model && len(list.Data) > 1) || m.Pricing == nil {
			continue
		}
		pin, ok1 := perToken(list.Data[i].Pricing.Prompt)
		pout, ok2 := perToken(list.Data[i].Pricing.Completion)
		if !ok1 || !ok2 {
			return 0, 0, false, nil
		}
		return perMillion(pin), perMillion(pout), true, nil
	}
	return 0, 0, false, nil
}

// perMillion is a price per token per million tokens, rounded to a
// billionth of a dollar (0.0000005 is 0.5, not 0.49999999999999994).
func perMillion(perToken float64) float64 {
	return math.Round(perToken*1e15) / 1e9
}

// perToken reads a price per token, a decimal string or a number.
func perToken(raw json.RawMessage) (float64, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && f >= 0
}
