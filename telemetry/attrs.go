package telemetry

// The attribute names core exports: the GenAI semantic conventions' where
// they have one, core.* otherwise (docs/telemetry.md).
const (
	AttrOperation     = "gen_ai.operation.name"
	AttrAgentName     = "gen_ai.agent.name"
	AttrConversation  = "gen_ai.conversation.id"
	AttrRequestModel  = "gen_ai.request.model"
	AttrInputTokens   = "gen_ai.usage.input_tokens"
	AttrOutputTokens  = "gen_ai.usage.output_tokens"
	AttrTokenType     = "gen_ai.token.type"
	AttrToolName      = "gen_ai.tool.name"
	AttrErrorType     = "error.type"
	AttrExitCode      = "process.exit.code"
	AttrExecutable    = "process.executable.name"
	AttrCommandLine   = "process.command_line" // content: opt-in
	AttrSession       = "core.session.id"
	AttrRepository    = "core.repository"
	AttrKind          = "core.run.kind"
	AttrRunKey        = "core.run.key"
	AttrResumed       = "core.resumed"
	AttrEnding        = "core.ending"
	AttrFailureKind   = "core.failure_kind"
	AttrTurns         = "core.turns"
	AttrTurn          = "core.turn"
	AttrTokens        = "core.tokens"
	AttrCost          = "core.cost_usd"
	AttrRetries       = "core.retries"
	AttrBackend       = "core.sandbox.backend"
	AttrLimit         = "core.sandbox.limit"
	AttrOutcome       = "core.outcome"
	AttrCheck         = "core.check.name"
	AttrVerdict       = "core.verdict"
	AttrLanded        = "core.land.target"
	AttrStatus        = "core.status"
	AttrFrom          = "core.from"
	AttrGoal          = "core.goal"        // content: opt-in
	AttrToolTarget    = "core.tool.target" // content: opt-in
	AttrText          = "core.text"        // content: opt-in
	AttrWebhookEvent  = "core.webhook.event"
	AttrWebhookAction = "core.webhook.action"
	AttrDelivery      = "core.webhook.delivery"
	AttrBotRun        = "core.bot.run_id"
	AttrDispatchMode  = "core.bot.mode"
)

// The operation names of the GenAI conventions core uses.
const (
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
	OpInvokeAgent = "invoke_agent"
)

// The span names (docs/telemetry.md); a request's is "chat <model>", a
// tool call's "execute_tool <tool>", a command's "command <program>".
const (
	SpanRun      = "invoke_agent core"
	SpanTurn     = "turn"
	SpanDeps     = "dependencies"
	SpanCheck    = "check"
	SpanLand     = "land"
	SpanWebhook  = "webhook"
	SpanDispatch = "dispatch"
)
