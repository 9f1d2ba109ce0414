"""Spend: what a run may pay (caps), what it has paid (usage, requests), and at what price.

One vocabulary, used by every module here and by everything that reports spend:

- a **call** is what the graph asks for: one prompt, for `n` answers (`CallGateway.ask`, one
  `state.Call` record). A call answered wholly from the answer cache is *cached* and pays nothing;
- a **request** is what goes on the wire: one HTTP request. A retry after a 429, a 5xx or a
  timeout is another request, and so is each parallel single request standing in for `n` on a
  server that ignores it. Caps, allowances and every ledger count requests (`max_requests`);
- a **completion** is one answer, from the model (received) or from the cache.

The modules, bottom up:

- `usage`: `Usage` (prompt and completion tokens) and the estimate of a request before it is
  sent; plain data, so models and tasks import it without the engine;
- `pricing`: USD per million tokens (`Price`, `price_for`);
- `budget`: the caps (`Budget`, validated once, here), the `Meter` that reserves each request
  before it leaves and settles it when it ends, and `share`, the one "remaining share" rule by
  which evaluations on Ray and tunes split what is left among the runs in flight;
- `ledger`: the requests of one call (`CallLedger`), reported by a model adapter through the
  narrow `RequestRecorder` interface, each with its outcome (`Attempt`);
- `accounting`: what a run spent after the fact (`Spend`), from its recorded calls.
"""
