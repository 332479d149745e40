from swe_env.parsing import ToolCall, parse_tool_call, parse_tool_calls


def test_hermes_tool_call():
    text = 'Let me look.\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>'
    assert parse_tool_call(text) == ToolCall("bash", {"command": "ls -la"})


def test_arguments_as_json_string_are_passed_through():
    call = parse_tool_call('<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}</tool_call>')
    assert call.name == "bash" and call.arguments_json() == '{"command": "pwd"}'


def test_several_calls_in_order_and_bad_json_kept_for_the_server_to_reject():
    calls = parse_tool_calls('<tool_call>{"name": "bash", "arguments": {"command": "a"}}</tool_call> <tool_call>{oops</tool_call>')
    assert [c.name for c in calls] == ["bash", ""]


def test_fenced_bash_block():
    assert parse_tool_call("Run this:\n```bash\ngrep -rn foo .\n```\n") == ToolCall("bash", {"command": "grep -rn foo ."})


def test_no_tool_call():
    assert parse_tool_call("just thinking") is None
