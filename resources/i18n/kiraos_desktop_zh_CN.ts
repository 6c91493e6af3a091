<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About KiraOS Desktop</source>
        <translation>关于 KiraOS Desktop</translation>
    </message>
    <message>
        <source>Memory manager and skill workbench for chatbots, compatible with the KiraOS plugin.
Running on Python {0}, Qt {1}.</source>
        <translation>聊天机器人的记忆管理器与技能工作台，与 KiraOS 插件兼容。
运行于 Python {0}，Qt {1}。</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>companion (KiraOS plugin data)</source>
        <translation>伴随模式（使用 KiraOS 插件的数据）</translation>
    </message>
    <message>
        <source>standalone</source>
        <translation>独立模式</translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation>模式：</translation>
    </message>
    <message>
        <source>Data folder:</source>
        <translation>数据文件夹：</translation>
    </message>
    <message>
        <source>Database:</source>
        <translation>数据库：</translation>
    </message>
    <message>
        <source>Skills folder:</source>
        <translation>技能文件夹：</translation>
    </message>
    <message>
        <source>Settings file:</source>
        <translation>设置文件：</translation>
    </message>
    <message>
        <source>Backups:</source>
        <translation>备份：</translation>
    </message>
    <message>
        <source>Logs folder:</source>
        <translation>日志文件夹：</translation>
    </message>
    <message>
        <source>API token file:</source>
        <translation>API 令牌文件：</translation>
    </message>
    <message>
        <source>The file that holds the API&apos;s bearer token when none is set in the settings. The API page shows and copies the token.</source>
        <translation>设置中未指定令牌时，保存 API 持有者令牌（Bearer）的文件。可在“API”页面查看和复制令牌。</translation>
    </message>
    <message>
        <source>Bundled components</source>
        <translation>内置组件</translation>
    </message>
    <message>
        <source>KiraOS Desktop is MIT licensed. Qt, PySide6 and psycopg are used under the LGPLv3:
the Qt libraries and psycopg ship as separate files that you may replace.</source>
        <translation>KiraOS Desktop 以 MIT 许可证发布。Qt、PySide6 与 psycopg 依 LGPLv3 使用：
Qt 库与 psycopg 以独立文件的形式提供，您可以自行替换。</translation>
    </message>
</context>
<context>
    <name>AddEventDialog</name>
    <message>
        <source>Add event for {user}</source>
        <translation>为 {user} 添加事件</translation>
    </message>
    <message>
        <source>What happened, in one or two sentences</source>
        <translation>发生了什么，用一两句话描述</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>{n} / {max} characters</source>
        <translation>{n} / {max} 个字符</translation>
    </message>
</context>
<context>
    <name>AddProfileDialog</name>
    <message>
        <source>New user</source>
        <translation>新建用户</translation>
    </message>
    <message>
        <source>Add profile entry for {user}</source>
        <translation>为 {user} 添加画像条目</translation>
    </message>
    <message>
        <source>the id the bot uses, e.g. qq_123456</source>
        <translation>机器人使用的 ID，例如 qq_123456</translation>
    </message>
    <message>
        <source>0 to 1, e.g. 0.8</source>
        <translation>0 到 1，例如 0.8</translation>
    </message>
    <message>
        <source>empty = never; or 30m, 12h, 7d, 2w, 1d12h, {date}</source>
        <translation>留空 = 永不过期；或 30m、12h、7d、2w、1d12h、{date}</translation>
    </message>
    <message>
        <source>User id</source>
        <translation>用户 ID</translation>
    </message>
    <message>
        <source>and the first thing to remember about them:</source>
        <translation>以及关于此用户的第一条记忆：</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>{user} already has memory: select them in the list and add the entry there</source>
        <translation>{user} 已有记忆：请在列表中选中该用户，在那里添加条目</translation>
    </message>
    <message>
        <source>this user already has “{key}”; edit it in the table</source>
        <translation>该用户已有“{key}”，请在表格中编辑</translation>
    </message>
    <message>
        <source>“{text}” is in the past: the entry would expire at once. Use a later date or a TTL such as 7d, or leave it empty for “never”.</source>
        <translation>“{text}”已经过去：该条目会立即过期。请填写更晚的日期或 7d 之类的有效期；留空表示“永不过期”。</translation>
    </message>
    <message numerus="yes">
        <source>This user already has %n profile entries, the limit. Delete an entry, or raise “Profile entries per user” in Settings.</source>
        <translation>
            <numerusform>该用户已有 %n 条画像条目，达到上限。请删除一条，或在设置中调高“每个用户的画像条目数”。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>AgentBadgeDelegate</name>
    <message>
        <source>Agent Skills</source>
        <translation>Agent Skills</translation>
    </message>
</context>
<context>
    <name>ApiPage</name>
    <message>
        <source>Loopback API</source>
        <translation>本机 API</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>URL:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Regenerate…</source>
        <translation>重新生成…</translation>
    </message>
    <message>
        <source>Token:</source>
        <translation>令牌：</translation>
    </message>
    <message>
        <source>Memory files:</source>
        <translation>记忆文件：</translation>
    </message>
    <message>
        <source>KiraOS data:</source>
        <translation>KiraOS 数据：</translation>
    </message>
    <message>
        <source>Requests since start</source>
        <translation>启动以来的请求</translation>
    </message>
    <message>
        <source>Example requests</source>
        <translation>请求示例</translation>
    </message>
    <message>
        <source>Copy example with token</source>
        <translation>复制示例（含令牌）</translation>
    </message>
    <message>
        <source>KiraOS {layout} (written by plugin {version})</source>
        <translation>KiraOS {layout}（由插件 {version} 写入）</translation>
    </message>
    <message>
        <source>{files}: other users of this computer can read your memories. Make them private: chmod 700 the folder, chmod 600 the files.</source>
        <translation>{files}：这台电脑上的其他用户可以读取您的记忆。请将其设为私有：文件夹 chmod 700，文件 chmod 600。</translation>
    </message>
    <message>
        <source>{files} (private to you)</source>
        <translation>{files}（仅您可读取）</translation>
    </message>
    <message>
        <source>Total: {0}    Errors: {1}</source>
        <translation>总计：{0}    错误：{1}</translation>
    </message>
    <message>
        <source>No requests yet. Bot hosts call the URL above with the token; try the examples above, under Connect a host.</source>
        <translation>还没有请求。机器人宿主程序用上面的地址和令牌调用；可以试试上方“连接宿主程序”中的示例。</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>{0} (not serving; a free port is chosen at start)</source>
        <translation>{0}（未在服务；启动时自动选择空闲端口）</translation>
    </message>
    <message>
        <source>{0} (not serving)</source>
        <translation>{0}（未在服务）</translation>
    </message>
    <message>
        <source>No token required (started with --no-auth)</source>
        <translation>无需令牌（以 --no-auth 启动）</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <source>Regenerate the API token?</source>
        <translation>重新生成 API 令牌？</translation>
    </message>
    <message>
        <source>Bot hosts that use the current token will be refused until they are given the new one. The server restarts with the new token.</source>
        <translation>使用当前令牌的机器人宿主程序将被拒绝，直到换用新令牌。服务器会以新令牌重新启动。</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
</context>
<context>
    <name>AppController</name>
    <message>
        <source>Cannot open that folder</source>
        <translation>无法打开该文件夹</translation>
    </message>
    <message>
        <source>Cannot open the memory database</source>
        <translation>无法打开记忆数据库</translation>
    </message>
</context>
<context>
    <name>BusyBox</name>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>ChangeFeedModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Actor</source>
        <translation>操作者</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>What</source>
        <translation>内容</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>……另有 %n 条</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CommandTester</name>
    <message>
        <source>Type a message such as /tarot 今天运势</source>
        <translation>输入一条消息，例如 /tarot 今天运势</translation>
    </message>
    <message>
        <source>Skill:</source>
        <translation>技能：</translation>
    </message>
    <message>
        <source>Arguments text:</source>
        <translation>参数文本：</translation>
    </message>
    <message>
        <source>Rewritten message:</source>
        <translation>改写后的消息：</translation>
    </message>
    <message>
        <source>Type a slash command to see how a host routes it.</source>
        <translation>输入一条斜杠命令，查看宿主程序如何路由它。</translation>
    </message>
    <message>
        <source>No enabled skill has this command; the message reaches the LLM unchanged.</source>
        <translation>没有已启用的技能使用此命令；消息将原样交给 LLM。</translation>
    </message>
    <message>
        <source>Matches skill {0} (command {1}).</source>
        <translation>匹配技能 {0}（命令 {1}）。</translation>
    </message>
    <message>
        <source>Note: slash commands are turned off in the settings (enable_slash_commands), so hosts do not route them yet.</source>
        <translation>注意：设置中已关闭斜杠命令（enable_slash_commands），宿主程序暂不会路由它们。</translation>
    </message>
</context>
<context>
    <name>ConnectHostsBox</name>
    <message>
        <source>Connect a host</source>
        <translation>连接宿主程序</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Add to {path} (Settings › Developer › Edit Config), then restart Claude Desktop. It starts this app&apos;s MCP server itself; the window need not run.</source>
        <translation>添加到 {path}（设置 › 开发者 › 编辑配置），然后重启 Claude Desktop。它会自行启动本程序的 MCP 服务器，无需打开本窗口。</translation>
    </message>
    <message>
        <source>Add to .cursor/mcp.json in your project (or ~/.cursor/mcp.json for all projects). The API server must be running.</source>
        <translation>添加到项目中的 .cursor/mcp.json（或 ~/.cursor/mcp.json，对所有项目生效）。API 服务器须在运行。</translation>
    </message>
    <message>
        <source>Add to .vscode/mcp.json in your workspace (VS Code uses the key &quot;servers&quot;). The API server must be running.</source>
        <translation>添加到工作区中的 .vscode/mcp.json（VS Code 使用 &quot;servers&quot; 键）。API 服务器须在运行。</translation>
    </message>
    <message>
        <source>Run in a terminal. The API server must be running.</source>
        <translation>在终端中运行。API 服务器须在运行。</translation>
    </message>
    <message>
        <source>Any program can use the HTTP API directly: this reads a user&apos;s memory block.</source>
        <translation>任何程序都可以直接使用 HTTP API：这条命令读取一位用户的记忆块。</translation>
    </message>
</context>
<context>
    <name>ContextTab</name>
    <message>
        <source>Type what the user says to see the block for that message (query=)</source>
        <translation>输入用户说的话，查看针对这句话的记忆块（query=）</translation>
    </message>
    <message>
        <source>What the bot receives before each reply (GET /v1/context):</source>
        <translation>机器人每次回复前收到的内容（GET /v1/context）：</translation>
    </message>
    <message>
        <source>Current &amp;message:</source>
        <translation>当前消息(&amp;M)：</translation>
    </message>
    <message>
        <source>No event matches this message: the bot gets the usual block.</source>
        <translation>没有事件与这句话相关：机器人收到的是平常的记忆块。</translation>
    </message>
    <message>
        <source>Why each event is in the block (relevant to the message, or recent to fill the rest):</source>
        <translation>每条事件为何在记忆块中（与消息相关，或是最近的事件补足其余）：</translation>
    </message>
    <message>
        <source>relevant ({words}): {event}</source>
        <translation>相关（{words}）：{event}</translation>
    </message>
    <message>
        <source>recent: {event}</source>
        <translation>最近：{event}</translation>
    </message>
    <message>
        <source>Select a user.</source>
        <translation>请选择一个用户。</translation>
    </message>
    <message>
        <source>Could not read this user&apos;s memory: {message}</source>
        <translation>无法读取该用户的记忆：{message}</translation>
    </message>
    <message>
        <source>Empty: this user has no live memory, so the bot receives nothing for them.</source>
        <translation>空：该用户没有有效记忆，机器人不会收到任何关于他的内容。</translation>
    </message>
    <message>
        <source>{n} of {max} characters (max_context_chars)</source>
        <translation>{n} / {max} 个字符（max_context_chars）</translation>
    </message>
    <message numerus="yes">
        <source>%n characters (max_context_chars = 0: no limit)</source>
        <translation>
            <numerusform>%n 个字符（max_context_chars = 0：不限）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n other events are not in the block: it carries {max}, those about the message first, then the newest (“Events in context” in Settings, max_events_per_user).</source>
        <translation>
            <numerusform>另有 %n 条事件不在记忆块中：记忆块带 {max} 条，先放与这条消息相关的，再用最新的补足（设置中的“上下文事件数”，max_events_per_user）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n older events are not in the block: it carries the newest {max} only (“Events in context” in Settings, max_events_per_user).</source>
        <translation>
            <numerusform>另有 %n 条较早的事件不在记忆块中：记忆块只带最新的 {max} 条（设置中的“上下文事件数”，max_events_per_user）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Left out to stay within the budget (%n items):</source>
        <translation>
            <numerusform>为不超出字数上限而略去（%n 项）：</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing was left out.</source>
        <translation>没有省略任何内容。</translation>
    </message>
</context>
<context>
    <name>DatabaseErrorBox</name>
    <message>
        <source>Cannot open the memory database</source>
        <translation>无法打开记忆数据库</translation>
    </message>
    <message>
        <source>the PostgreSQL database</source>
        <translation>该 PostgreSQL 数据库</translation>
    </message>
    <message>
        <source>KiraOS Desktop cannot use {database}.</source>
        <translation>KiraOS Desktop 无法使用 {database}。</translation>
    </message>
    <message>
        <source>{message}

Check the address, the user name and password, and that the server is running and accepts connections from this computer.

You can quit, or open the local data in {folder} (a SQLite database on this computer) for this session; the setting is kept.</source>
        <translation>{message}

请检查地址、用户名和密码，并确认服务器正在运行且接受来自这台电脑的连接。

您可以退出，或在本次会话中打开 {folder} 中的本地数据（这台电脑上的 SQLite 数据库）；设置保持不变。</translation>
    </message>
    <message>
        <source>Open local data</source>
        <translation>打开本地数据</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>DatabaseOutageLabel</name>
    <message>
        <source>Database server unreachable</source>
        <translation>无法连接数据库服务器</translation>
    </message>
    <message>
        <source>The database server does not answer; reconnecting. Changes cannot be saved until it is back, and what is shown may be out of date.</source>
        <translation>数据库服务器没有响应，正在重新连接。恢复连接之前无法保存更改，显示的内容可能不是最新的。</translation>
    </message>
    <message>
        <source>The database server answers again; the window shows its current data.</source>
        <translation>已重新连接数据库服务器，窗口显示的是最新数据。</translation>
    </message>
</context>
<context>
    <name>EntitiesPage</name>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Search profiles and memories (Ctrl+F)</source>
        <translation>搜索画像与记忆（Ctrl+F）</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新读取</translation>
    </message>
    <message>
        <source>Read the tree again (F5)</source>
        <translation>重新读取文件树（F5）</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>Reading the tree…</source>
        <translation>正在读取文件树…</translation>
    </message>
    <message>
        <source>Searching… {done} of {total} entities read</source>
        <translation>正在搜索… 已读取 {done} / {total} 个实体</translation>
    </message>
    <message>
        <source>Reading the tree… {done} of {total} entities</source>
        <translation>正在读取文件树… {done} / {total} 个实体</translation>
    </message>
    <message numerus="yes">
        <source>%n entities</source>
        <translation>
            <numerusform>%n 个实体</numerusform>
        </translation>
    </message>
    <message>
        <source>The tree could not be read: {reason}</source>
        <translation>无法读取文件树：{reason}</translation>
    </message>
    <message>
        <source>Each word must begin a word of a profile field, fact or reflection (teach finds teacher), Chinese words too; a single character is looked for anywhere</source>
        <translation>每个词都必须是画像字段、事实或反思中某个词的开头（teach 能找到 teacher），中文词语也一样；单个字符在任意位置查找</translation>
    </message>
    <message>
        <source>No entity matches the search</source>
        <translation>没有符合搜索的实体</translation>
    </message>
    <message>
        <source>The tree holds no entity yet: the plugin writes one when a user first talks to the bot</source>
        <translation>文件树中还没有实体：用户第一次与机器人对话时插件会写入</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>未找到</translation>
    </message>
</context>
<context>
    <name>EntityDetailView</name>
    <message>
        <source>Profile</source>
        <translation>画像</translation>
    </message>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>What the bot sees</source>
        <translation>机器人看到的内容</translation>
    </message>
    <message>
        <source>History</source>
        <translation>变更记录</translation>
    </message>
    <message>
        <source>&amp;Add…</source>
        <translation>添加(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>Ar&amp;chive</source>
        <translation>归档(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Restore</source>
        <translation>恢复(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Delete for good…</source>
        <translation>永久删除(&amp;D)…</translation>
    </message>
    <message>
        <source>Re&amp;vert this change</source>
        <translation>撤销此更改(&amp;V)</translation>
    </message>
    <message>
        <source>Re-&amp;index</source>
        <translation>重新索引(&amp;I)</translation>
    </message>
    <message>
        <source>Edit &amp;field…</source>
        <translation>编辑字段(&amp;F)…</translation>
    </message>
    <message>
        <source>A message this user might send, e.g. 最近吉他练得怎么样</source>
        <translation>该用户可能发送的消息，例如：最近吉他练得怎么样</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>What the bot adds to its prompt for this message: what it knows of the user, and the 5 facts and reflections it finds most related, chosen as the plugin chooses them. Words the plugin was taught by hand, and recall by meaning if it has it turned on, are not shown here. The bot does this for users only.</source>
        <translation>机器人为这条消息加入提示词的内容：它对该用户的了解，以及它认为最相关的 5 条事实和反思，按插件的方式选出。插件中手工添加的词语，以及插件开启时的语义召回，这里不会显示。机器人只对用户这样做。</translation>
    </message>
    <message>
        <source>Choose an entity on the left</source>
        <translation>请在左侧选择一个实体</translation>
    </message>
    <message numerus="yes">
        <source>Problems (%n)</source>
        <translation>
            <numerusform>问题（%n）</numerusform>
        </translation>
    </message>
    <message>
        <source>No profile yet</source>
        <translation>暂无画像</translation>
    </message>
    <message>
        <source>No facts or reflections yet</source>
        <translation>暂无事实或反思</translation>
    </message>
    <message>
        <source>Nothing archived</source>
        <translation>没有已归档的记忆</translation>
    </message>
    <message>
        <source>Every file could be read</source>
        <translation>所有文件均可读取</translation>
    </message>
    <message>
        <source>No change made here yet</source>
        <translation>尚未在此做过更改</translation>
    </message>
    <message>
        <source>Type a message first.</source>
        <translation>请先输入一条消息。</translation>
    </message>
    <message>
        <source>The bot adds nothing for this message.</source>
        <translation>对这条消息，机器人不会加入任何内容。</translation>
    </message>
    <message numerus="yes">
        <source>%n memory file(s) say something other than the bot&apos;s index (edited by hand, or never indexed): the running bot recalls what the index says until they are re-indexed.</source>
        <translation>
            <numerusform>有 %n 个记忆文件与机器人的索引不一致（手动编辑过，或从未建立索引）：在重新索引之前，运行中的机器人仍按索引中的内容回忆。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EntityListModel</name>
    <message>
        <source>Type</source>
        <extracomment>What sorting compares (numbers as numbers): UserRole on every model here.</extracomment>
        <translation>类型</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名字</translation>
    </message>
    <message>
        <source>Facts</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>Reflections</source>
        <translation>反思</translation>
    </message>
    <message>
        <source>Archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>group</source>
        <translation>群组</translation>
    </message>
    <message>
        <source>channel</source>
        <translation>频道</translation>
    </message>
    <message>
        <source>bot (shared)</source>
        <translation>机器人（共享）</translation>
    </message>
    <message>
        <source>bot (self)</source>
        <translation>机器人（自我）</translation>
    </message>
</context>
<context>
    <name>EventDelegate</name>
    <message>
        <source>milestone, daily, mood…</source>
        <translation>milestone、daily、mood……</translation>
    </message>
</context>
<context>
    <name>EventsModel</name>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Tag</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Edit event tag</source>
        <translation>编辑事件标签</translation>
    </message>
    <message>
        <source>Edit event</source>
        <translation>编辑事件</translation>
    </message>
    <message>
        <source>this event no longer exists</source>
        <translation>该事件已不存在</translation>
    </message>
</context>
<context>
    <name>EventsTab</name>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete selected events</source>
        <translation>删除所选事件</translation>
    </message>
    <message>
        <source>Edit in a larger editor…</source>
        <translation>在多行编辑器中编辑…</translation>
    </message>
    <message>
        <source>Edit event</source>
        <translation>编辑事件</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Add event</source>
        <translation>添加事件</translation>
    </message>
    <message>
        <source>Delete event</source>
        <translation>删除事件</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n events</source>
        <translation>
            <numerusform>删除 %n 条事件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n events. Undo with Ctrl+Z.</source>
        <translation>
            <numerusform>已删除 %n 条事件。可按 Ctrl+Z 撤销。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n 条事件</numerusform>
        </translation>
    </message>
    <message>
        <source>Event not saved: {message}</source>
        <translation>事件未保存：{message}</translation>
    </message>
    <message>
        <source>No events yet. Add one, or let the bot record them with memory_update.</source>
        <translation>还没有事件。可以手动添加，或让机器人通过 memory_update 记录。</translation>
    </message>
    <message>
        <source>Select a user to see their events.</source>
        <translation>选择一个用户以查看其事件。</translation>
    </message>
</context>
<context>
    <name>Expiry</name>
    <message>
        <source>that TTL reaches past the year 9999</source>
        <translation>该有效期超出了 9999 年</translation>
    </message>
    <message>
        <source>“{text}” is outside the dates that can be stored: from the year 1 to 9999-12-31 23:59:59.</source>
        <translation>“{text}”超出了可保存的日期范围：从公元 1 年到 9999-12-31 23:59:59。</translation>
    </message>
    <message>
        <source>“{text}” is a TTL of zero. Use at least one minute, such as 30m, 12h or 7d, or leave it empty for “never”.</source>
        <translation>“{text}”的有效期为零。请至少填写一分钟，例如 30m、12h 或 7d；留空表示“永不过期”。</translation>
    </message>
    <message>
        <source>“{text}” is longer than 100 years. Use a shorter TTL or a date, or leave it empty for “never”.</source>
        <translation>“{text}”超过了 100 年。请填写更短的有效期或一个日期；留空表示“永不过期”。</translation>
    </message>
    <message>
        <source>“{text}” is neither a TTL nor a date. Use a TTL such as 30m, 12h, 7d, 2w or 1d12h, a date such as {date} or {date} 18:00, or leave it empty for “never”.</source>
        <translation>“{text}”既不是有效期（TTL）也不是日期。请使用 30m、12h、7d、2w 或 1d12h 这样的有效期，{date} 或 {date} 18:00 这样的日期，或留空表示“永不过期”。</translation>
    </message>
    <message>
        <source>unreadable date</source>
        <translation>无法识别的日期</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <source>{n} d</source>
        <translation>{n} 天</translation>
    </message>
</context>
<context>
    <name>FieldValidation</name>
    <message>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <source>at most {n} characters</source>
        <translation>最多 {n} 个字符</translation>
    </message>
    <message>
        <source>“{text}” is not a confidence: use a number between 0 and 1, such as 0.8</source>
        <translation>“{text}”不是有效的置信度：请填写 0 到 1 之间的数，例如 0.8</translation>
    </message>
</context>
<context>
    <name>FileActions</name>
    <message>
        <source>Open a KiraOS Desktop data folder</source>
        <translation>打开 KiraOS Desktop 数据文件夹</translation>
    </message>
    <message>
        <source>Open the data folder of a KiraOS plugin install</source>
        <translation>打开 KiraOS 插件安装的数据文件夹</translation>
    </message>
    <message>
        <source>Open KiraOS data folder</source>
        <translation>打开 KiraOS 数据文件夹</translation>
    </message>
    <message>
        <source>{folder} does not look like the data folder of a KiraOS plugin install (the folder that holds memory/ and skills/): it has no {looked_for}.

Open it anyway and start an empty database there?</source>
        <translation>{folder} 看起来不是 KiraOS 插件的数据文件夹（即包含 memory/ 和 skills/ 的文件夹）：其中没有 {looked_for}。

仍要打开并在那里新建一个空数据库吗？</translation>
    </message>
    <message>
        <source>Open anyway</source>
        <translation>仍然打开</translation>
    </message>
    <message>
        <source>{folder} cannot be opened: {reason}</source>
        <translation>无法打开 {folder}：{reason}</translation>
    </message>
    <message>
        <source>Remove expired entries</source>
        <translation>清除过期条目</translation>
    </message>
    <message>
        <source>Remove the expired profile entries of all users? The bot no longer sees them. You can undo this with Ctrl+Z, or revert it per user in the History tab.</source>
        <translation>清除所有用户已过期的画像条目吗？机器人已经看不到它们。可以按 Ctrl+Z 撤销，或在各用户的“变更记录”标签页中还原。</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Removing expired entries…</source>
        <translation>正在清除过期条目…</translation>
    </message>
    <message>
        <source>Nothing was removed:
{message}</source>
        <translation>未清除任何内容：
{message}</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n expired entries</source>
        <translation>
            <numerusform>清除 %n 条过期条目</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed %n expired entries.</source>
        <translation>
            <numerusform>已清除 %n 条过期条目。</numerusform>
        </translation>
    </message>
    <message>
        <source>There were no expired entries.</source>
        <translation>没有过期条目。</translation>
    </message>
</context>
<context>
    <name>FileTasks</name>
    <message>
        <source>Back up the database</source>
        <translation>备份数据库</translation>
    </message>
    <message>
        <source>SQLite database (*.db);;All files (*)</source>
        <translation>SQLite 数据库 (*.db);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Copying the database…</source>
        <translation>正在复制数据库…</translation>
    </message>
    <message>
        <source>The backup failed:
{0}</source>
        <translation>备份失败：
{0}</translation>
    </message>
    <message>
        <source>Backup cancelled; no file was written.</source>
        <translation>备份已取消，未写入任何文件。</translation>
    </message>
    <message>
        <source>Backup written to {0} ({1}).</source>
        <translation>备份已写入 {0}（{1}）。</translation>
    </message>
    <message>
        <source>Export memory</source>
        <translation>导出记忆</translation>
    </message>
    <message>
        <source>KiraOS export (*.json);;All files (*)</source>
        <translation>KiraOS 导出文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Writing {0}…</source>
        <translation>正在写入 {0}…</translation>
    </message>
    <message>
        <source>The export failed:
{0}</source>
        <translation>导出失败：
{0}</translation>
    </message>
    <message>
        <source>Export cancelled; no file was written.</source>
        <translation>导出已取消，未写入任何文件。</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n users to {path}.</source>
        <translation>
            <numerusform>已将 %n 个用户导出到 {path}。</numerusform>
        </translation>
    </message>
    <message>
        <source>Import memory</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <source>{file} is not a KiraOS Desktop export (those are written by File &gt; Export… and by Export this user…).</source>
        <translation>{file} 不是 KiraOS Desktop 导出文件（导出文件由“文件 &gt; 导出…”和“导出该用户…”生成）。</translation>
    </message>
    <message>
        <source>Checking {0}…</source>
        <translation>正在检查 {0}…</translation>
    </message>
    <message>
        <source>This file cannot be imported:
{0}

Nothing was changed.</source>
        <translation>无法导入此文件：
{0}

没有做任何更改。</translation>
    </message>
    <message>
        <source>Import {users} with {entries} and {events} from {file}?</source>
        <translation>从 {file} 导入 {users}，共 {entries}、{events}？</translation>
    </message>
    <message numerus="yes">
        <source>%n users</source>
        <translation>
            <numerusform>%n 个用户</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n profile entries</source>
        <translation>
            <numerusform>%n 条画像条目</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n 条事件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n of these users already have memory: entries with the same key are replaced, identical events are skipped.</source>
        <translation>
            <numerusform>其中 %n 个用户已有记忆：键相同的条目将被替换，相同的事件将被跳过。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n event tags are not kept: this memory has no event tags (the data of the KiraOS plugin 2.x has them).</source>
        <translation>
            <numerusform>%n 个事件标签不会保留：此记忆库没有事件标签（KiraOS 插件 2.x 的数据才有）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation>正在导入…</translation>
    </message>
    <message>
        <source>Import cancelled; nothing was changed.</source>
        <translation>导入已取消，没有做任何更改。</translation>
    </message>
    <message>
        <source>The import failed and nothing was changed:
{0}</source>
        <translation>导入失败，没有做任何更改：
{0}</translation>
    </message>
    <message>
        <source>Imported {entries} and {events} for {users}.</source>
        <translation>已为 {users}导入 {entries}和 {events}。</translation>
    </message>
    <message numerus="yes">
        <source>%n new events</source>
        <translation>
            <numerusform>%n 条新事件</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一个</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <source>Close the find bar (Esc)</source>
        <translation>关闭查找栏（Esc）</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>查找：</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>未找到</translation>
    </message>
</context>
<context>
    <name>HelpDialog</name>
    <message>
        <source>KiraOS Desktop guide</source>
        <translation>KiraOS Desktop 使用指南</translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <source>expires {date}</source>
        <translation>{date} 过期</translation>
    </message>
    <message>
        <source>deleted</source>
        <translation>已删除</translation>
    </message>
    <message numerus="yes">
        <source>%n oldest events</source>
        <translation>
            <numerusform>%n 条最早的事件</numerusform>
        </translation>
    </message>
    <message>
        <source>trimmed</source>
        <translation>已裁剪</translation>
    </message>
    <message>
        <source>{entries}, {events}</source>
        <translation>{entries}、{events}</translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n 条画像条目</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n 条事件</numerusform>
        </translation>
    </message>
    <message>
        <source>cleared</source>
        <translation>已清空</translation>
    </message>
    <message numerus="yes">
        <source>%n expired entries</source>
        <translation>
            <numerusform>%n 条过期条目</numerusform>
        </translation>
    </message>
    <message>
        <source>purged</source>
        <translation>已清除</translation>
    </message>
    <message>
        <source>imported {entries}, {events}</source>
        <translation>导入了 {entries}、{events}</translation>
    </message>
    <message>
        <source>set entry</source>
        <translation>设置条目</translation>
    </message>
    <message>
        <source>delete entry</source>
        <translation>删除条目</translation>
    </message>
    <message>
        <source>add event</source>
        <translation>添加事件</translation>
    </message>
    <message>
        <source>edit event</source>
        <translation>编辑事件</translation>
    </message>
    <message>
        <source>delete event</source>
        <translation>删除事件</translation>
    </message>
    <message>
        <source>trim events</source>
        <translation>裁剪事件</translation>
    </message>
    <message>
        <source>clear memory</source>
        <translation>清空记忆</translation>
    </message>
    <message>
        <source>purge expired</source>
        <translation>清除过期条目</translation>
    </message>
    <message>
        <source>import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>bot (tool call)</source>
        <translation>机器人（工具调用）</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>command line</source>
        <translation>命令行</translation>
    </message>
</context>
<context>
    <name>HistoryModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>No.</source>
        <extracomment>profile.json fields the plugin keeps as epoch seconds.</extracomment>
        <translation>编号</translation>
    </message>
    <message>
        <source>By</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>更改</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>added</source>
        <translation>已添加</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <source>restored</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>deleted for good</source>
        <translation>已永久删除</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>画像</translation>
    </message>
    <message>
        <source>reverted</source>
        <translation>已撤销</translation>
    </message>
    <message>
        <source>re-indexed</source>
        <translation>已重新索引</translation>
    </message>
    <message>
        <source>all archived (memory_clear)</source>
        <translation>全部归档（memory_clear）</translation>
    </message>
    <message>
        <source>window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <source>bot host</source>
        <translation>机器人宿主</translation>
    </message>
    <message>
        <source>{action} (change {n})</source>
        <translation>{action}（更改 {n}）</translation>
    </message>
    <message>
        <source>{text}
(memory {id})</source>
        <translation>{text}
（记忆 {id}）</translation>
    </message>
    <message>
        <source>Actor</source>
        <translation>操作者</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Before → after</source>
        <translation>修改前 → 修改后</translation>
    </message>
</context>
<context>
    <name>HistoryTab</name>
    <message>
        <source>Revert this change</source>
        <translation>还原此变更</translation>
    </message>
    <message>
        <source>Write the opposite of the selected change (undoable with Ctrl+Z)</source>
        <translation>写入与所选变更相反的操作（可按 Ctrl+Z 撤销）</translation>
    </message>
    <message>
        <source>Revert {action} {target}</source>
        <translation>还原“{action}” {target}</translation>
    </message>
    <message>
        <source>Could not revert: {message}</source>
        <translation>无法还原：{message}</translation>
    </message>
    <message>
        <source>Reverted. Undo with Ctrl+Z.</source>
        <translation>已还原。按 Ctrl+Z 撤销。</translation>
    </message>
    <message numerus="yes">
        <source>%n+ changes</source>
        <translation>
            <numerusform>%n+ 条变更</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changes</source>
        <translation>
            <numerusform>%n 条变更</numerusform>
        </translation>
    </message>
    <message>
        <source>No recorded changes for this user. Changes made from now on appear here.</source>
        <translation>该用户还没有变更记录。此后的变更会显示在这里。</translation>
    </message>
    <message>
        <source>Select a user to see their history.</source>
        <translation>选择一个用户以查看其变更记录。</translation>
    </message>
</context>
<context>
    <name>LicenseModel</name>
    <message>
        <source>Public domain</source>
        <translation>公有领域</translation>
    </message>
    <message>
        <source>the file name of Qt&apos;s ICU library</source>
        <translation>Qt 的 ICU 库的文件名</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>{0} (not verified)</source>
        <translation>{0}（未核实）</translation>
    </message>
    <message>
        <source>A native library without package metadata: the version comes from {0}, the license is the one the library is published under.</source>
        <translation>没有软件包元数据的原生库：版本号取自{0}，许可证为该库发布时采用的许可证。</translation>
    </message>
    <message>
        <source>This native library is not available in this build.</source>
        <translation>此版本中不包含该原生库。</translation>
    </message>
    <message>
        <source>From the package metadata ({0}).</source>
        <translation>取自软件包元数据（{0}）。</translation>
    </message>
    <message>
        <source>The package metadata is not available; this is the license the component is known to use.</source>
        <translation>无法获取软件包元数据；这是该组件已知使用的许可证。</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>组件</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>License</source>
        <translation>许可证</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>the API server was not set up</source>
        <translation>API 服务器未能建立</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Users</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source> — companion mode</source>
        <translation> — 伴随模式</translation>
    </message>
    <message>
        <source>KiraOS Desktop</source>
        <translation>KiraOS Desktop</translation>
    </message>
    <message>
        <source>The skill workbench is not part of this build.</source>
        <translation>此版本不包含技能工作台。</translation>
    </message>
    <message>
        <source>The API server could not be set up: {detail}</source>
        <translation>无法建立 API 服务器：{detail}</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open data folder…</source>
        <translation>打开数据文件夹…</translation>
    </message>
    <message>
        <source>Open KiraOS data folder…</source>
        <translation>打开 KiraOS 数据文件夹…</translation>
    </message>
    <message>
        <source>Back up…</source>
        <translation>备份…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Remove expired entries…</source>
        <translation>清除过期条目…</translation>
    </message>
    <message>
        <source>Copy memory to PostgreSQL…</source>
        <translation>将记忆复制到 PostgreSQL…</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>KiraOS {layout} data: </source>
        <translation>KiraOS {layout} 数据：</translation>
    </message>
    <message>
        <source>The memory database is busy: another program kept its lock too long. Try again in a moment.</source>
        <translation>记忆数据库正忙：另一个程序占用锁的时间太长。请稍后再试。</translation>
    </message>
    <message>
        <source>Another KiraOS Desktop instance wrote the same memory at the same moment. Try again.</source>
        <translation>另一个 KiraOS Desktop 实例在同一时刻写入了同一份记忆。请重试。</translation>
    </message>
    <message>
        <source>The disk of the memory database is full. Free some space and try again.</source>
        <translation>记忆数据库所在的磁盘已满。请腾出一些空间后重试。</translation>
    </message>
    <message>
        <source>This user may not write the memory database. Check the file&apos;s or the database role&apos;s permissions.</source>
        <translation>当前用户无权写入记忆数据库。请检查文件或数据库角色的权限。</translation>
    </message>
    <message>
        <source>Not saved</source>
        <translation>未保存</translation>
    </message>
    <message>
        <source>The API is serving at {url}. The bot loses its memory while KiraOS Desktop is closed.

Quit anyway?</source>
        <translation>API 正在 {url} 提供服务。KiraOS Desktop 关闭期间，机器人将失去记忆。

仍要退出吗？</translation>
    </message>
    <message>
        <source>Quit KiraOS Desktop</source>
        <translation>退出 KiraOS Desktop</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Guide</source>
        <translation>使用指南</translation>
    </message>
    <message>
        <source>About KiraOS Desktop</source>
        <translation>关于 KiraOS Desktop</translation>
    </message>
    <message>
        <source>Database: </source>
        <translation>数据库：</translation>
    </message>
    <message>
        <source>The change was not saved.

{reason}

Nothing else was changed; everything saved before is kept.</source>
        <translation>这次修改没有保存。

{reason}

其他内容都没有改动；之前保存的一切都还在。</translation>
    </message>
    <message>
        <source>Undo/redo failed: {message}</source>
        <translation>撤销/重做失败：{message}</translation>
    </message>
    <message>
        <source>API error</source>
        <translation>API 错误</translation>
    </message>
</context>
<context>
    <name>ManifestEditor</name>
    <message>
        <source>Form</source>
        <translation>表单</translation>
    </message>
    <message>
        <source>JSON</source>
        <translation>JSON</translation>
    </message>
    <message>
        <source>Line {0}, column {1}: {2}</source>
        <translation>第 {0} 行，第 {1} 列：{2}</translation>
    </message>
    <message>
        <source>The JSON is nested too deeply.</source>
        <translation>JSON 嵌套层级过深。</translation>
    </message>
    <message>
        <source>The manifest must be a JSON object ({...}).</source>
        <translation>清单必须是一个 JSON 对象（{...}）。</translation>
    </message>
    <message>
        <source>Valid JSON.</source>
        <translation>JSON 有效。</translation>
    </message>
    <message>
        <source>The form cannot show this manifest ({0}); edit it in the JSON view.</source>
        <translation>表单无法显示此清单（{0}）；请在 JSON 视图中编辑。</translation>
    </message>
    <message>
        <source>The JSON is not valid (line {0}). The form shows the last valid version and is disabled until the JSON is fixed; nothing you typed is lost.</source>
        <translation>JSON 无效（第 {0} 行）。表单显示最后一个有效版本，并在 JSON 修正前保持禁用；您输入的内容不会丢失。</translation>
    </message>
</context>
<context>
    <name>ManifestForm</name>
    <message>
        <source>letters, digits, _ or -</source>
        <translation>字母、数字、_ 或 -</translation>
    </message>
    <message>
        <source>/command (optional)</source>
        <translation>/命令（可选）</translation>
    </message>
    <message>
        <source>Plain</source>
        <translation>简单</translation>
    </message>
    <message>
        <source>Jinja2</source>
        <translation>Jinja2</translation>
    </message>
    <message>
        <source>{name} placeholders replaced in one pass</source>
        <translation>一次性替换 {name} 占位符</translation>
    </message>
    <message>
        <source>A sandboxed Jinja2 template: {{ name }}, {% if name %}</source>
        <translation>沙箱中的 Jinja2 模板：{{ name }}、{% if name %}</translation>
    </message>
    <message>
        <source>Template engine of the instruction</source>
        <translation>指令使用的模板引擎</translation>
    </message>
    <message>
        <source>When should the LLM call this skill? (the tool description)</source>
        <translation>LLM 应在什么情况下调用此技能？（即工具描述）</translation>
    </message>
    <message>
        <source>When must it not be used? (prepended as a guard)</source>
        <translation>什么情况下不得使用？（作为防护语句置于开头）</translation>
    </message>
    <message>
        <source>Add parameter</source>
        <translation>添加参数</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Template:</source>
        <translation>模板：</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>Description:</source>
        <translation>描述：</translation>
    </message>
    <message>
        <source>Trigger:</source>
        <translation>触发条件：</translation>
    </message>
    <message>
        <source>Exclude:</source>
        <translation>排除条件：</translation>
    </message>
    <message>
        <source>Parameters:</source>
        <translation>参数：</translation>
    </message>
</context>
<context>
    <name>MemoryDialog</name>
    <message>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>Reflection</source>
        <translation>反思</translation>
    </message>
    <message>
        <source>The running bot uses the edit on its next reply. If the bot is merging something it just learned into this very memory at that moment (it takes a few seconds), its merged text replaces the edit: the Memories tab then shows its text, and reverting your edit says the file changed since.</source>
        <translation>运行中的机器人在下一次回复时就会使用这次修改。如果机器人恰好在这时把刚学到的内容合并进这条记忆（需要几秒钟），合并后的文本会取代你的修改：“记忆”标签页随后显示它的文本，撤销你的修改时会提示文件已被更改。</translation>
    </message>
    <message>
        <source>&amp;Text:</source>
        <translation>文本(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Importance:</source>
        <translation>重要度(&amp;I)：</translation>
    </message>
    <message>
        <source>T&amp;ags:</source>
        <translation>标签(&amp;A)：</translation>
    </message>
    <message>
        <source>separated by commas, e.g. hobby, 音乐</source>
        <translation>用逗号分隔，例如 爱好, 音乐</translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation>类型(&amp;K)：</translation>
    </message>
    <message>
        <source>Write the memory&apos;s text first.</source>
        <translation>请先填写记忆的文本。</translation>
    </message>
</context>
<context>
    <name>MemoryModel</name>
    <message>
        <source>Text</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>重要度</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>种类</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>ID: {id}</source>
        <translation>ID：{id}</translation>
    </message>
    <message>
        <source>Session: {session}</source>
        <translation>会话：{session}</translation>
    </message>
    <message>
        <source>fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>reflection</source>
        <translation>反思</translation>
    </message>
    <message>
        <source>skill</source>
        <translation>技能</translation>
    </message>
</context>
<context>
    <name>MigrateDialog</name>
    <message>
        <source>Copy memory to PostgreSQL</source>
        <translation>将记忆复制到 PostgreSQL</translation>
    </message>
    <message>
        <source>Copies the memory of {database} (profiles, events, history and the recall index) into an empty PostgreSQL database, where several API instances and windows can share it. The database must exist and be empty. The copy is one transaction: if it fails or you cancel it, the database is left empty.</source>
        <translation>将 {database} 中的记忆（画像、事件、历史记录和召回索引）复制到一个空的 PostgreSQL 数据库，多个 API 实例和窗口可以在那里共享它。该数据库必须已存在且为空。复制在一个事务中完成：如果失败或被取消，数据库保持为空。</translation>
    </message>
    <message>
        <source>leave empty to use PGPASSWORD or .pgpass</source>
        <translation>留空则使用 PGPASSWORD 或 .pgpass</translation>
    </message>
    <message>
        <source>Database URL:</source>
        <translation>数据库 URL：</translation>
    </message>
    <message>
        <source>Password:</source>
        <translation>密码：</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>This is no PostgreSQL URL: {problem}</source>
        <translation>这不是有效的 PostgreSQL URL：{problem}</translation>
    </message>
    <message>
        <source>Copying the memory into {database}…</source>
        <translation>正在将记忆复制到 {database}…</translation>
    </message>
    <message>
        <source>Cancelled: nothing was kept in {database}.</source>
        <translation>已取消：{database} 中没有保留任何内容。</translation>
    </message>
    <message>
        <source>Nothing was copied: {message}</source>
        <translation>没有复制任何内容：{message}</translation>
    </message>
    <message>
        <source>Copied into {database} and verified: the row counts of every table and of every user agree.</source>
        <translation>已复制到 {database} 并校验：每个表和每个用户的行数都一致。</translation>
    </message>
    <message>
        <source>Use {database} from now on? The setting database_url will name it (with its password, in settings.json of the data folder, readable only by you) and the window reopens on it. The SQLite database stays as it is.</source>
        <translation>从现在起使用 {database} 吗？设置 database_url 将指向它（连同密码，保存在数据文件夹的 settings.json 中，仅您可读），窗口将在其上重新打开。SQLite 数据库保持不变。</translation>
    </message>
    <message>
        <source>Use it</source>
        <translation>使用它</translation>
    </message>
</context>
<context>
    <name>OverviewPage</name>
    <message>
        <source>Users</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Profile entries</source>
        <translation>画像条目</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>API:</source>
        <translation>API：</translation>
    </message>
    <message>
        <source>Database:</source>
        <translation>数据库：</translation>
    </message>
    <message>
        <source>Recent changes</source>
        <translation>最近变更</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>&lt;b&gt;No user has any memory yet.&lt;/b&gt; Connect a bot to the API (its address and token are on the API page): what it stores appears here and on the Users page. &lt;a href=&quot;guide&quot;&gt;Read the guide&lt;/a&gt; (F1) for what profile entries, categories, confidence and TTL mean, how skills use {name} and {{ name }}, and how a bot connects.</source>
        <translation>&lt;b&gt;还没有任何用户的记忆。&lt;/b&gt;将机器人连接到 API（地址和令牌见“API”页面）：它存储的内容会显示在这里和“用户”页面。&lt;a href=&quot;guide&quot;&gt;阅读使用指南&lt;/a&gt;（F1），了解画像条目、类别、置信度和有效期的含义，技能中 {name} 与 {{ name }} 的用法，以及机器人如何连接。</translation>
    </message>
    <message>
        <source>{n} enabled</source>
        <translation>已启用 {n} 个</translation>
    </message>
    <message>
        <source>No changes recorded yet. Writes by the bot, the API and this window appear here.</source>
        <translation>还没有变更记录。机器人、API 和本窗口的写入都会显示在这里。</translation>
    </message>
</context>
<context>
    <name>ParametersModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Required</source>
        <translation>必填</translation>
    </message>
    <message>
        <source>Enum values</source>
        <translation>可选值</translation>
    </message>
    <message>
        <source>Allowed values separated by commas; leave empty for any value.</source>
        <translation>允许的值，用逗号分隔；留空表示任意值。</translation>
    </message>
    <message>
        <source>A call without this argument is refused.</source>
        <translation>缺少此参数的调用会被拒绝。</translation>
    </message>
</context>
<context>
    <name>PreviewPane</name>
    <message>
        <source>Tool result</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>What the LLM receives when it calls the skill</source>
        <translation>LLM 调用该技能时收到的内容</translation>
    </message>
    <message>
        <source>Tool definition: OpenAI</source>
        <translation>工具定义：OpenAI</translation>
    </message>
    <message>
        <source>Tool definition: Anthropic</source>
        <translation>工具定义：Anthropic</translation>
    </message>
    <message>
        <source>Tool definition: MCP</source>
        <translation>工具定义：MCP</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Legend:</source>
        <translation>图例：</translation>
    </message>
    <message>
        <source>exclude guard</source>
        <translation>排除防护</translation>
    </message>
    <message>
        <source>&lt;user_input&gt; value</source>
        <translation>&lt;user_input&gt; 值</translation>
    </message>
    <message>
        <source>&lt;context&gt; memory</source>
        <translation>&lt;context&gt; 记忆</translation>
    </message>
    <message>
        <source>A host&apos;s call with these arguments is refused: {0}: {1}.</source>
        <translation>宿主程序以这些参数调用时会被拒绝：{0}：{1}。</translation>
    </message>
    <message>
        <source>Below, what it returns once they are given (missing ones marked).</source>
        <translation>下面是填好参数后会返回的内容（缺少的参数已标出）。</translation>
    </message>
    <message>
        <source>The template fails; the host receives this error result.</source>
        <translation>模板出错；宿主程序会收到这条错误结果。</translation>
    </message>
    <message>
        <source>{0} characters; exactly what the tool call returns.</source>
        <translation>{0} 个字符，即工具调用返回的全部内容。</translation>
    </message>
    <message>
        <source>This skill&apos;s entry in the host&apos;s tool list.</source>
        <translation>此技能在宿主程序工具列表中的条目。</translation>
    </message>
    <message>
        <source>The preview failed unexpectedly: {0}</source>
        <translation>预览意外失败：{0}</translation>
    </message>
</context>
<context>
    <name>ProblemModel</name>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Why it cannot be read</source>
        <translation>无法读取的原因</translation>
    </message>
</context>
<context>
    <name>ProblemsModel</name>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>✖ error</source>
        <translation>✖ 错误</translation>
    </message>
    <message>
        <source>⚠ warning</source>
        <translation>⚠ 警告</translation>
    </message>
    <message>
        <source>folder</source>
        <translation>文件夹</translation>
    </message>
</context>
<context>
    <name>ProblemsPanel</name>
    <message>
        <source>No problems.</source>
        <translation>没有问题。</translation>
    </message>
    <message>
        <source>{errors}, {warnings}. Click one to jump to it.</source>
        <translation>{errors}，{warnings}。点击某一项可跳转到对应位置。</translation>
    </message>
    <message numerus="yes">
        <source>%n errors</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warnings</source>
        <translation>
            <numerusform>%n 个警告</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProfileDelegate</name>
    <message>
        <source>0 to 1, e.g. 0.8</source>
        <translation>0 到 1，例如 0.8</translation>
    </message>
    <message>
        <source>30d, 12h, {date} … empty = never</source>
        <translation>30d、12h、{date} … 留空 = 永不过期</translation>
    </message>
</context>
<context>
    <name>ProfileFieldDialog</name>
    <message>
        <source>Add &amp;row</source>
        <extracomment>The fields an operator edits (entity_id and entity_type say what the file is; last_interaction is the plugin&apos;s).</extracomment>
        <translation>添加一行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Remove row</source>
        <translation>删除行(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Field:</source>
        <translation>字段(&amp;F)：</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>条目</translation>
    </message>
    <message>
        <source>An object&apos;s value that reads as JSON (a number, [list], {object}, true, false) is kept as that, anything else as text; list items are texts. Rows with an empty key or item are left out.</source>
        <translation>对象中能按 JSON 读取的值（数字、[列表]、{object}、true、false）按 JSON 保存，其余按文本保存；列表条目均为文本。键或条目为空的行会被忽略。</translation>
    </message>
    <message>
        <source>One item per row; rows left empty are left out.</source>
        <translation>每行一个条目；空行会被忽略。</translation>
    </message>
</context>
<context>
    <name>ProfileModel</name>
    <message>
        <source>How sure the bot is, from 0 to 1. The mark after it is the one the bot&apos;s memory block shows: ✓ 0.8 or more, ? 0.5 or more, ~ below 0.5. Higher comes first.</source>
        <translation>机器人有多确定，0 到 1。后面的标记与机器人记忆块中显示的一致：✓ 0.8 及以上，? 0.5 及以上，~ 低于 0.5。越高越靠前。</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名字</translation>
    </message>
    <message>
        <source>Nickname</source>
        <translation>昵称</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>Traits</source>
        <translation>特点</translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>Relationships</source>
        <translation>关系</translation>
    </message>
    <message>
        <source>Facts</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>Aliases</source>
        <translation>别名</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话次数</translation>
    </message>
    <message>
        <source>Last conversation</source>
        <translation>最近一次对话</translation>
    </message>
    <message>
        <source>Other data</source>
        <translation>其他数据</translation>
    </message>
    <message>
        <source>{field}: {key}</source>
        <translation>{field}：{key}</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <source>never</source>
        <translation>永不</translation>
    </message>
    <message>
        <source>Expires {when}</source>
        <translation>{when} 过期</translation>
    </message>
    <message>
        <source>✓ at least 0.8, ? at least 0.5, ~ below 0.5</source>
        <translation>✓ 不低于 0.8，? 不低于 0.5，~ 低于 0.5</translation>
    </message>
    <message>
        <source>Edit {key}</source>
        <translation>编辑 {key}</translation>
    </message>
</context>
<context>
    <name>ProfileTab</name>
    <message>
        <source>Add…</source>
        <translation>添加…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Show expired</source>
        <translation>显示已过期</translation>
    </message>
    <message>
        <source>Purge expired</source>
        <translation>清除过期条目</translation>
    </message>
    <message>
        <source>Delete selected entries</source>
        <translation>删除所选条目</translation>
    </message>
    <message>
        <source>Edit the value in a larger editor…</source>
        <translation>在多行编辑器中编辑值…</translation>
    </message>
    <message>
        <source>Add {key}</source>
        <translation>添加 {key}</translation>
    </message>
    <message>
        <source>Edit {key}</source>
        <translation>编辑 {key}</translation>
    </message>
    <message>
        <source>Value of {key}</source>
        <translation>{key} 的值</translation>
    </message>
    <message>
        <source>Delete {key}</source>
        <translation>删除 {key}</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n entries</source>
        <translation>
            <numerusform>删除 %n 条画像</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n entries. Undo with Ctrl+Z.</source>
        <translation>
            <numerusform>已删除 %n 条画像。可按 Ctrl+Z 撤销。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Purged %n expired entries.</source>
        <translation>
            <numerusform>已清除 %n 条过期画像。</numerusform>
        </translation>
    </message>
    <message>
        <source>{entries} · {n} expired hidden</source>
        <translation>{entries} · 已隐藏 {n} 条过期</translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n 条画像</numerusform>
        </translation>
    </message>
    <message>
        <source>{entries} · {n} expired</source>
        <translation>{entries} · {n} 条已过期</translation>
    </message>
    <message>
        <source>Purge expired entries</source>
        <translation>清除过期条目</translation>
    </message>
    <message>
        <source>{field} not saved: {message}</source>
        <translation>{field}未保存：{message}</translation>
    </message>
    <message>
        <source>{field} not changed: {message}</source>
        <translation>{field}未更改：{message}</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Select a user to see what the bot remembers about them.</source>
        <translation>选择一个用户，查看机器人记住了关于他的什么。</translation>
    </message>
    <message>
        <source>Every entry of this user has expired. Tick “Show expired” to see them.</source>
        <translation>该用户的所有条目均已过期。勾选“显示已过期”即可查看。</translation>
    </message>
    <message>
        <source>No profile entries yet. Add one, or let the bot learn with memory_update.</source>
        <translation>还没有画像条目。可以手动添加，或让机器人通过 memory_update 学习。</translation>
    </message>
</context>
<context>
    <name>Prompter</name>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>The skill {0} has unsaved changes.</source>
        <translation>技能 {0} 有未保存的更改。</translation>
    </message>
    <message>
        <source>Save them before leaving this skill?</source>
        <translation>离开此技能前要保存吗？</translation>
    </message>
    <message>
        <source>Save skill</source>
        <translation>保存技能</translation>
    </message>
    <message>
        <source>{0} has errors, so hosts cannot call it: it leaves the tool list when it is saved, until the errors are fixed.</source>
        <translation>{0} 有错误，宿主无法调用它：保存后它会从工具列表中移除，直到错误修正为止。</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>……另有 %n 条</numerusform>
        </translation>
    </message>
    <message>
        <source>Save anyway</source>
        <translation>仍然保存</translation>
    </message>
    <message>
        <source>Delete skill</source>
        <translation>删除技能</translation>
    </message>
    <message>
        <source>Delete the skill {0}?</source>
        <translation>删除技能 {0}？</translation>
    </message>
    <message>
        <source>Its folder is moved to {0}, where you can get it back.</source>
        <translation>它的文件夹会被移到 {0}，需要时可以从那里找回。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Skill changed on disk</source>
        <translation>磁盘上的技能已更改</translation>
    </message>
    <message>
        <source>The files of {0} were changed by another program.</source>
        <translation>{0} 的文件已被其他程序修改。</translation>
    </message>
    <message>
        <source>You have unsaved changes. Reload the files from disk and lose them, or keep your version (saving will overwrite the files)?</source>
        <translation>您有未保存的更改。要从磁盘重新加载文件并丢弃这些更改，还是保留您的版本（保存时将覆盖这些文件）？</translation>
    </message>
    <message>
        <source>Reload from disk</source>
        <translation>从磁盘重新加载</translation>
    </message>
    <message>
        <source>Keep my changes</source>
        <translation>保留我的更改</translation>
    </message>
    <message>
        <source>Import skill</source>
        <translation>导入技能</translation>
    </message>
    <message>
        <source>A skill named {0} already exists.</source>
        <translation>已有名为 {0} 的技能。</translation>
    </message>
    <message>
        <source>Replace it with the imported skill (the current one is moved to the backups, as a deleted skill is), or import under another name?</source>
        <translation>用导入的技能替换它（现有的技能会像删除的技能一样移到备份中），还是换个名称导入？</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>{0} already exists.</source>
        <translation>{0} 已存在。</translation>
    </message>
    <message>
        <source>Replace that folder with the exported skill?</source>
        <translation>用导出的技能替换该文件夹？</translation>
    </message>
</context>
<context>
    <name>QMessageBox</name>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
</context>
<context>
    <name>RecallBuildIndicator</name>
    <message>
        <source>Indexing events for recall</source>
        <translation>正在为记忆召回建立事件索引</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop indexing: what is indexed stays, the rest is indexed at the next start. Recall works meanwhile, more slowly.</source>
        <translation>停止建立索引：已建好的部分保留，其余在下次启动时继续。期间召回照常可用，只是较慢。</translation>
    </message>
    <message>
        <source>Indexing users for search</source>
        <translation>正在为搜索建立用户索引</translation>
    </message>
    <message>
        <source>Recall index built: every event can be recalled.</source>
        <translation>召回索引已建好：所有事件都可以被召回。</translation>
    </message>
    <message>
        <source>Search index built: keys, values and events are searched quickly.</source>
        <translation>搜索索引已建好：可以快速搜索键、值和事件。</translation>
    </message>
    <message>
        <source>Indexing stopped; it goes on at the next start.</source>
        <translation>索引已暂停，下次启动时继续。</translation>
    </message>
    <message>
        <source>Indexing events for recall failed: {message}</source>
        <translation>为记忆召回建立事件索引失败：{message}</translation>
    </message>
    <message>
        <source>Indexing users for search failed: {message}</source>
        <translation>为搜索建立用户索引失败：{message}</translation>
    </message>
</context>
<context>
    <name>RouteCountersModel</name>
    <message>
        <source>(rejected)</source>
        <translation>（已拒绝）</translation>
    </message>
    <message>
        <source>(no route)</source>
        <translation>（无此路由）</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求数</translation>
    </message>
</context>
<context>
    <name>SampleArgumentsForm</name>
    <message>
        <source>This skill declares no parameters.</source>
        <translation>此技能未声明任何参数。</translation>
    </message>
    <message>
        <source>{0} ({1}, required)</source>
        <translation>{0}（{1}，必填）</translation>
    </message>
    <message>
        <source>any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>{0} ({1}, optional)</source>
        <translation>{0}（{1}，可选）</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>（未设置）</translation>
    </message>
    <message>
        <source>JSON {0}</source>
        <translation>JSON {0}</translation>
    </message>
</context>
<context>
    <name>Screenshot</name>
    <message>
        <source>wrote {n} screenshots to {folder}: {names}</source>
        <translation>已将 {n} 张截图写入 {folder}：{names}</translation>
    </message>
</context>
<context>
    <name>ServerStateRelay</name>
    <message>
        <source>API running at {url}</source>
        <translation>API 运行于 {url}</translation>
    </message>
    <message>
        <source>API starting…</source>
        <translation>API 正在启动…</translation>
    </message>
    <message>
        <source>API not running: {detail}</source>
        <translation>API 未运行：{detail}</translation>
    </message>
    <message>
        <source>API stopped</source>
        <translation>API 已停止</translation>
    </message>
    <message>
        <source>running at {url}</source>
        <translation>运行于 {url}</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>not running: {detail}</source>
        <translation>未运行：{detail}</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <extracomment>The settings that the running API server was started with; a change needs a restart.</extracomment>
        <translation>设置</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Events in context:</source>
        <translation>上下文中的事件数：</translation>
    </message>
    <message>
        <source>newest events per user in context and memory_query</source>
        <translation>每个用户在上下文和 memory_query 中提供的最新事件数</translation>
    </message>
    <message>
        <source>Profile entries per user:</source>
        <translation>每个用户的画像条目数：</translation>
    </message>
    <message>
        <source>more are refused; 0 = no limit</source>
        <translation>超出的将被拒绝；0 = 不限</translation>
    </message>
    <message>
        <source>Events kept per user:</source>
        <translation>每个用户保留的事件数：</translation>
    </message>
    <message>
        <source>the oldest go when a new one comes; 0 = keep all</source>
        <translation>新事件到来时删除最早的；0 = 全部保留</translation>
    </message>
    <message>
        <source>Context length:</source>
        <translation>上下文长度：</translation>
    </message>
    <message>
        <source>characters per user; whole items are dropped; 0 = unlimited</source>
        <translation>每个用户的字符数；超出时整项省略；0 = 不限</translation>
    </message>
    <message>
        <source>(the SQLite file in the data folder)</source>
        <translation>（数据文件夹中的 SQLite 文件）</translation>
    </message>
    <message>
        <source>password</source>
        <translation>密码</translation>
    </message>
    <message>
        <source>PostgreSQL database:</source>
        <translation>PostgreSQL 数据库：</translation>
    </message>
    <message>
        <source>postgresql://user@host:5432/database; empty = SQLite.
A change reopens the window on that database.</source>
        <translation>postgresql://user@host:5432/database；留空 = SQLite。
更改后窗口会在该数据库上重新打开。</translation>
    </message>
    <message>
        <source>Skills</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Skills folder:</source>
        <translation>技能文件夹：</translation>
    </message>
    <message>
        <source>Empty = the default folder shown. A new folder is used after a restart.</source>
        <translation>留空 = 使用所示的默认文件夹。更换的文件夹在重启后生效。</translation>
    </message>
    <message>
        <source>Skills offered to the bot:</source>
        <translation>提供给机器人的技能：</translation>
    </message>
    <message>
        <source>Unchecked skills are hidden from the tool list.</source>
        <translation>未勾选的技能不会出现在工具列表中。</translation>
    </message>
    <message>
        <source>Route /commands to skills</source>
        <translation>将 /命令 路由到技能</translation>
    </message>
    <message>
        <source>Slash commands:</source>
        <translation>斜杠命令：</translation>
    </message>
    <message>
        <source>Loopback API</source>
        <translation>本机 API</translation>
    </message>
    <message>
        <source>Not a loopback address: other machines can reach the API.</source>
        <translation>这不是回环地址：其他机器也能访问此 API。</translation>
    </message>
    <message>
        <source>Host:</source>
        <translation>主机：</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <source>0 = any free port</source>
        <translation>0 = 任意空闲端口</translation>
    </message>
    <message>
        <source>(generated token from the api-token file)</source>
        <translation>（使用 api-token 文件中自动生成的令牌）</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Token:</source>
        <translation>令牌：</translation>
    </message>
    <message>
        <source>Empty = the generated token.
Changing host, port or token restarts the API server.</source>
        <translation>留空 = 使用自动生成的令牌。
更改主机、端口或令牌会重启 API 服务器。</translation>
    </message>
    <message>
        <source>The API serves at {running} now (chosen on the command line). Host and port here are the saved ones ({saved}), used when it starts without those options.</source>
        <translation>API 现在在 {running} 提供服务（由命令行指定）。这里的主机和端口是保存的设置（{saved}），在不带这些选项启动时使用。</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Applies at once; “System” follows the language of the desktop.</source>
        <translation>立即生效；“跟随系统”使用桌面环境的语言。</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Colours:</source>
        <translation>配色：</translation>
    </message>
    <message>
        <source>Applies at once; “System” follows the desktop&apos;s light or dark mode.</source>
        <translation>立即生效；“跟随系统”随桌面的浅色或深色模式切换。</translation>
    </message>
    <message>
        <source>Closing the window keeps the API serving in the tray</source>
        <translation>关闭窗口后在托盘中继续提供 API 服务</translation>
    </message>
    <message>
        <source>Tray:</source>
        <translation>托盘：</translation>
    </message>
    <message>
        <source>Where the desktop has a tray. Without one, closing asks while the API serves.</source>
        <translation>仅在桌面有系统托盘时生效。没有托盘时，若 API 正在服务，关闭窗口前会先询问。</translation>
    </message>
    <message>
        <source> (has errors)</source>
        <translation>（有错误）</translation>
    </message>
    <message>
        <source> (not found)</source>
        <translation>（未找到）</translation>
    </message>
    <message>
        <source>Fix this skill&apos;s problems in the Skills page before turning it on.</source>
        <translation>请先在“技能”页面修正这个技能的问题，再启用它。</translation>
    </message>
    <message>
        <source>No skills in the skills folder.</source>
        <translation>技能文件夹中没有技能。</translation>
    </message>
    <message>
        <source>Use a whole number such as 10, not “{text}”.</source>
        <translation>请填写整数，例如 10，而不是“{text}”。</translation>
    </message>
    <message>
        <source>Use 0 or more, not {n}.</source>
        <translation>请填写 0 或更大的数，而不是 {n}。</translation>
    </message>
    <message>
        <source>A port is at most 65535, not {n}.</source>
        <translation>端口最大为 65535，而不是 {n}。</translation>
    </message>
    <message>
        <source>The host must not be empty: enter one such as 127.0.0.1.</source>
        <translation>主机不能为空：请填写例如 127.0.0.1。</translation>
    </message>
    <message>
        <source>“{text}” is not a host name or an IP address; use e.g. 127.0.0.1 or localhost.</source>
        <translation>“{text}”不是主机名或 IP 地址；请使用例如 127.0.0.1 或 localhost。</translation>
    </message>
    <message>
        <source>Not a PostgreSQL URL: {problem}</source>
        <translation>不是有效的 PostgreSQL URL：{problem}</translation>
    </message>
    <message>
        <source>The token is sent in an HTTP header: use letters, digits and ASCII punctuation only, without spaces or line breaks.</source>
        <translation>令牌通过 HTTP 请求头发送：只能使用字母、数字和 ASCII 标点，不能含空格或换行。</translation>
    </message>
    <message>
        <source>Choose the skills folder</source>
        <translation>选择技能文件夹</translation>
    </message>
    <message>
        <source>Settings not saved</source>
        <translation>设置未保存</translation>
    </message>
    <message>
        <source>The settings could not be saved:
{0}</source>
        <translation>无法保存设置：
{0}</translation>
    </message>
</context>
<context>
    <name>SkillEditor</name>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Write both files and reload the skill (Ctrl+S)</source>
        <translation>写入两个文件并重新加载技能（Ctrl+S）</translation>
    </message>
    <message>
        <source>Revert</source>
        <translation>还原</translation>
    </message>
    <message>
        <source>Drop the unsaved changes</source>
        <translation>丢弃未保存的更改</translation>
    </message>
    <message>
        <source>SKILL.md (Agent Skills: front matter and instructions):</source>
        <translation>SKILL.md（Agent Skills：前置元数据和指令）：</translation>
    </message>
    <message>
        <source>Write SKILL.md and reload the skill (Ctrl+S)</source>
        <translation>写入 SKILL.md 并重新加载技能（Ctrl+S）</translation>
    </message>
    <message>
        <source>Instruction (instruction.md):</source>
        <translation>指令（instruction.md）：</translation>
    </message>
    <message>
        <source>No skill open</source>
        <translation>未打开技能</translation>
    </message>
    <message>
        <source>{0}{1}   (folder {2})</source>
        <translation>{0}{1}   （文件夹 {2}）</translation>
    </message>
</context>
<context>
    <name>SkillFiles</name>
    <message>
        <source>Give the skill a name.</source>
        <translation>请为技能起个名字。</translation>
    </message>
    <message>
        <source>{0!r} is not a valid skill name: use 1 to 64 ASCII letters, digits, _ or - (not starting with _).</source>
        <translation>{0!r} 不是有效的技能名称：请使用 1 到 64 个 ASCII 字母、数字、_ 或 -（不能以 _ 开头）。</translation>
    </message>
    <message>
        <source>{0!r} is reserved for the memory tools.</source>
        <translation>{0!r} 是记忆工具的保留名称。</translation>
    </message>
    <message>
        <source>Another skill is already named {0!r}.</source>
        <translation>已有另一个技能名为 {0!r}。</translation>
    </message>
    <message>
        <source>The skills folder already has an entry named {0!r}.</source>
        <translation>技能文件夹中已有名为 {0!r} 的项目。</translation>
    </message>
    <message>
        <source>New skill</source>
        <translation>新建技能</translation>
    </message>
    <message>
        <source>Name of the new skill (letters, digits, _ or -):</source>
        <translation>新技能的名称（字母、数字、_ 或 -）：</translation>
    </message>
    <message>
        <source>The skill was not created: the setting that keeps it disabled could not be saved: {0}</source>
        <translation>未创建技能：无法保存让它保持停用的设置：{0}</translation>
    </message>
    <message>
        <source>The skill could not be created: {0}</source>
        <translation>无法创建技能：{0}</translation>
    </message>
    <message>
        <source>Duplicate skill</source>
        <translation>复制技能</translation>
    </message>
    <message>
        <source>Name of the copy of {0}:</source>
        <translation>{0} 的副本名称：</translation>
    </message>
    <message>
        <source>The skill could not be duplicated: {0}</source>
        <translation>无法复制技能：{0}</translation>
    </message>
    <message>
        <source>Rename skill</source>
        <translation>重命名技能</translation>
    </message>
    <message>
        <source>New name of {0} (its folder is renamed too):</source>
        <translation>{0} 的新名称（其文件夹也会一起重命名）：</translation>
    </message>
    <message>
        <source>The skill could not be renamed: {0}</source>
        <translation>无法重命名技能：{0}</translation>
    </message>
    <message>
        <source>Delete skill</source>
        <translation>删除技能</translation>
    </message>
    <message>
        <source>The skill could not be deleted: {0}</source>
        <translation>无法删除技能：{0}</translation>
    </message>
    <message>
        <source>The skill was renamed but stays enabled: {0}</source>
        <translation>技能已重命名，但仍处于启用状态：{0}</translation>
    </message>
</context>
<context>
    <name>SkillListModel</name>
    <message>
        <source>Skill</source>
        <translation>技能</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>On</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>Enabled: listed as a tool for hosts</source>
        <translation>已启用：作为工具提供给宿主程序</translation>
    </message>
    <message>
        <source>Problems: ✖ errors (hosts cannot call the skill), ⚠ warnings</source>
        <translation>问题：✖ 错误（宿主程序无法调用该技能），⚠ 警告</translation>
    </message>
    <message>
        <source>✖ {0}</source>
        <translation>✖ {0}</translation>
    </message>
    <message>
        <source>⚠ {0}</source>
        <translation>⚠ {0}</translation>
    </message>
    <message>
        <source>Folder: {0}</source>
        <translation>文件夹：{0}</translation>
    </message>
    <message>
        <source>Agent Skills format (SKILL.md): other agents can load this folder as it is.</source>
        <translation>Agent Skills 格式（SKILL.md）：其他智能体可以直接加载此文件夹。</translation>
    </message>
    <message>
        <source>Hosts cannot call this skill until its errors are fixed.</source>
        <translation>修正错误之前，宿主程序无法调用此技能。</translation>
    </message>
    <message>
        <source>Disabled: hidden from hosts.</source>
        <translation>已停用：宿主程序看不到它。</translation>
    </message>
    <message>
        <source>… and {0} more</source>
        <translation>… 另有 {0} 项</translation>
    </message>
</context>
<context>
    <name>SkillListPanel</name>
    <message>
        <source>Search skills</source>
        <translation>搜索技能</translation>
    </message>
    <message>
        <source>Drop an Agent Skills folder or .zip/.skill archive here to import it</source>
        <translation>将 Agent Skills 文件夹或 .zip/.skill 压缩包拖放到此处即可导入</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>New skill from a template (Ctrl+N)</source>
        <translation>从模板新建技能（Ctrl+N）</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Move the skill folder to the backups area</source>
        <translation>将技能文件夹移到备份区</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Import an Agent Skill: a folder with SKILL.md or a .zip/.skill archive (you can also drop it on the list)</source>
        <translation>导入 Agent Skill：含 SKILL.md 的文件夹或 .zip/.skill 压缩包（也可以拖放到列表上）</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Write the skill as an Agent Skills folder (SKILL.md) that other agents can load</source>
        <translation>将技能导出为其他智能体可加载的 Agent Skills 文件夹（SKILL.md）</translation>
    </message>
    <message>
        <source>No skill matches “{text}”.</source>
        <translation>没有与“{text}”匹配的技能。</translation>
    </message>
    <message>
        <source>No skills yet.
New (Ctrl+N) starts one from a template; Import… brings in an Agent Skill (a folder with SKILL.md or a .zip/.skill archive, also by dropping it here).</source>
        <translation>还没有技能。
“新建”（Ctrl+N）从模板创建一个技能；“导入…”导入一个 Agent Skill（含 SKILL.md 的文件夹或 .zip/.skill 压缩包，也可以直接拖放到这里）。</translation>
    </message>
    <message>
        <source>Not available for an Agent Skills folder (SKILL.md)</source>
        <translation>不适用于 Agent Skills 文件夹（SKILL.md）</translation>
    </message>
</context>
<context>
    <name>SkillTransfer</name>
    <message>
        <source>Import skill</source>
        <translation>导入技能</translation>
    </message>
    <message>
        <source>Agent Skills (SKILL.md skill.md *.zip *.skill);;All files (*)</source>
        <translation>Agent Skills (SKILL.md skill.md *.zip *.skill);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Importing {0}…</source>
        <translation>正在导入 {0}…</translation>
    </message>
    <message>
        <source>The skill could not be imported:
{0}</source>
        <translation>无法导入技能：
{0}</translation>
    </message>
    <message>
        <source>{0} cannot be a tool name here. Import the skill under this name (letters, digits, _ or -):</source>
        <translation>{0} 不能用作工具名称。以此名称导入技能（字母、数字、_ 或 -）：</translation>
    </message>
    <message>
        <source>Import the skill under another name:</source>
        <translation>以另一个名称导入技能：</translation>
    </message>
    <message>
        <source>{0} is another skill&apos;s command, so the imported skill uses {1}.</source>
        <translation>{0} 已是另一个技能的命令，因此导入的技能改用 {1}。</translation>
    </message>
    <message>
        <source>{0} is another skill&apos;s command, so the imported skill has no command.</source>
        <translation>{0} 已是另一个技能的命令，因此导入的技能不设命令。</translation>
    </message>
    <message>
        <source>Export skill</source>
        <translation>导出技能</translation>
    </message>
    <message>
        <source>The skill could not be exported:
{0}</source>
        <translation>无法导出技能：
{0}</translation>
    </message>
    <message>
        <source>Exporting {0}…</source>
        <translation>正在导出 {0}…</translation>
    </message>
    <message>
        <source>Exported to {0}. Agent Skills hosts can load this folder as it is.</source>
        <translation>已导出到 {0}。Agent Skills 宿主程序可以直接加载此文件夹。</translation>
    </message>
</context>
<context>
    <name>SkillsPage</name>
    <message>
        <source>Save skill</source>
        <extracomment>Debounce of the live preview after an edit.</extracomment>
        <translation>保存技能</translation>
    </message>
    <message>
        <source>The skill could not be saved: {0}</source>
        <translation>无法保存技能：{0}</translation>
    </message>
    <message>
        <source>⟨{name}: missing⟩</source>
        <translation>⟨{name}：缺少⟩</translation>
    </message>
    <message>
        <source>No skill is open.</source>
        <translation>没有打开的技能。</translation>
    </message>
    <message>
        <source>{0} error(s): hosts cannot call this skill until they are fixed (see Problems). This is what it would return.</source>
        <translation>{0} 个错误：修正之前宿主程序无法调用此技能（见“问题”）。以下是它将返回的内容。</translation>
    </message>
    <message>
        <source>This skill is disabled: hosts do not see it. This is what it would return.</source>
        <translation>此技能已停用：宿主程序看不到它。以下是它将返回的内容。</translation>
    </message>
    <message>
        <source>Unsaved: hosts still get the saved version until you save (Ctrl+S).</source>
        <translation>未保存：保存（Ctrl+S）之前，宿主程序得到的仍是已保存的版本。</translation>
    </message>
    <message>
        <source>Enable skill</source>
        <translation>启用技能</translation>
    </message>
    <message numerus="yes">
        <source>{0} has %n problem(s) to fix before hosts can call it (see Problems), such as: {1}</source>
        <translation>
            <numerusform>{0} 还有 %n 个问题需要修正，宿主程序才能调用它（见“问题”），例如：{1}</numerusform>
        </translation>
    </message>
    <message>
        <source>The setting could not be saved: {0}</source>
        <translation>无法保存该设置：{0}</translation>
    </message>
</context>
<context>
    <name>StartupErrorBox</name>
    <message>
        <source>KiraOS Desktop cannot start</source>
        <translation>KiraOS Desktop 无法启动</translation>
    </message>
    <message>
        <source>KiraOS Desktop cannot open its data.</source>
        <translation>KiraOS Desktop 无法打开它的数据。</translation>
    </message>
    <message>
        <source>{message}

Correct what the message names (or move that file away to start from the defaults), then start KiraOS Desktop again. The data folder is {folder}; --data-dir chooses another one.</source>
        <translation>{message}

请更正上面所说的问题（或把那个文件移走，以默认设置启动），然后重新启动 KiraOS Desktop。数据文件夹是 {folder}；用 --data-dir 可以换一个。</translation>
    </message>
</context>
<context>
    <name>TableTab</name>
    <message>
        <source>Could not read this user&apos;s memory: {message}</source>
        <translation>无法读取该用户的记忆：{message}</translation>
    </message>
    <message>
        <source>Not read: the reason is below. It is read again on the next change, or when you choose the user again.</source>
        <translation>未能读取：原因见下方。下次有变更或再次选择该用户时会重新读取。</translation>
    </message>
</context>
<context>
    <name>TaskWorker</name>
    <message>
        <source>cancelled; nothing was changed</source>
        <extracomment>A task: called on the worker thread with `progress(done, total)` and `is_cancelled()`.</extracomment>
        <translation>已取消，没有做任何更改</translation>
    </message>
</context>
<context>
    <name>TextEditDialog</name>
    <message>
        <source>Ctrl+Enter saves; Enter starts a new line.</source>
        <extracomment>A value longer than this, or with a line break, opens in this dialog instead of the table cell.</extracomment>
        <translation>Ctrl+Enter 保存；Enter 换行。</translation>
    </message>
    <message>
        <source>{n} / {max} characters</source>
        <translation>{n} / {max} 字符</translation>
    </message>
    <message>
        <source>this entry no longer exists</source>
        <translation>该条目已不存在</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>Show window</source>
        <translation>显示窗口</translation>
    </message>
    <message>
        <source>Copy token</source>
        <translation>复制令牌</translation>
    </message>
    <message>
        <source>Quit KiraOS Desktop</source>
        <translation>退出 KiraOS Desktop</translation>
    </message>
    <message>
        <source>API stopped</source>
        <translation>API 已停止</translation>
    </message>
    <message>
        <source>KiraOS Desktop — {status}</source>
        <translation>KiraOS Desktop — {status}</translation>
    </message>
    <message>
        <source>KiraOS Desktop is still running</source>
        <translation>KiraOS Desktop 仍在运行</translation>
    </message>
    <message>
        <source>The API keeps serving your bot&apos;s memory. Open the window from this icon; quit from its menu.</source>
        <translation>API 仍在为机器人提供记忆服务。点击此图标可打开窗口；要退出请使用它的菜单。</translation>
    </message>
</context>
<context>
    <name>TreeEditActions</name>
    <message>
        <source>Not written</source>
        <translation>未写入</translation>
    </message>
    <message>
        <source>New memory of {who}</source>
        <translation>为 {who} 新建记忆</translation>
    </message>
    <message>
        <source>Add memory</source>
        <translation>添加记忆</translation>
    </message>
    <message>
        <source>Edit memory {id}</source>
        <translation>编辑记忆 {id}</translation>
    </message>
    <message>
        <source>Edit memory</source>
        <translation>编辑记忆</translation>
    </message>
    <message>
        <source>Archive memory</source>
        <translation>归档记忆</translation>
    </message>
    <message>
        <source>Restore memory</source>
        <translation>恢复记忆</translation>
    </message>
    <message>
        <source>Delete for good</source>
        <translation>永久删除</translation>
    </message>
    <message>
        <source>Delete the archived memory “{text}” for good? The plugin cannot bring it back; this window&apos;s history still can.</source>
        <translation>要永久删除已归档的记忆“{text}”吗？插件无法恢复它；本窗口的历史仍可撤销此操作。</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Delete archived memory</source>
        <translation>删除已归档的记忆</translation>
    </message>
    <message>
        <source>Profile of {who}</source>
        <translation>{who} 的画像</translation>
    </message>
    <message>
        <source>Edit profile field {name}</source>
        <translation>编辑画像字段 {name}</translation>
    </message>
    <message>
        <source>Re-index memories</source>
        <translation>重新索引记忆</translation>
    </message>
    <message>
        <source>Every memory of {who} is indexed as its file says.</source>
        <translation>{who} 的每条记忆都已按其文件建立索引。</translation>
    </message>
    <message>
        <source>Revert change {n}</source>
        <translation>撤销更改 {n}</translation>
    </message>
</context>
<context>
    <name>TreeProblems</name>
    <message>
        <source>cannot be read: {error}</source>
        <translation>无法读取：{error}</translation>
    </message>
    <message>
        <source>a link: not followed (nothing outside the tree is read)</source>
        <translation>是链接：未跟随（不读取树以外的任何内容）</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>larger than {limit_kib} KiB ({size:,} bytes): not read</source>
        <translation>超过 {limit_kib} KiB（{size:,} 字节）：未读取</translation>
    </message>
    <message>
        <source>not UTF-8 text (byte {byte})</source>
        <translation>不是 UTF-8 文本（第 {byte} 字节）</translation>
    </message>
    <message>
        <source>not valid TOML: {error}</source>
        <translation>不是有效的 TOML：{error}</translation>
    </message>
    <message>
        <source>not valid JSON: {error}</source>
        <translation>不是有效的 JSON：{error}</translation>
    </message>
    <message>
        <source>lists or tables nested deeper than {limit} levels: not read</source>
        <translation>列表或表嵌套超过 {limit} 层：未读取</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>{field} should be {expected}, not {found}: left out</source>
        <translation>{field} 应为{expected}，而不是{found}：已略过</translation>
    </message>
    <message>
        <source>not an entity folder ({{type}}_{{id}} with type {types}): left out</source>
        <translation>不是实体文件夹（应为 {{type}}_{{id}}，type 为 {types}）：已略过</translation>
    </message>
    <message>
        <source>an archive name the plugin does not make: left out</source>
        <translation>插件不会生成这样的归档文件名：已略过</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>null</source>
        <translation>null</translation>
    </message>
    <message>
        <source>true/false</source>
        <translation>true/false</translation>
    </message>
    <message>
        <source> or </source>
        <translation>或</translation>
    </message>
</context>
<context>
    <name>TreeRefusals</name>
    <message>
        <source>{path} cannot be read ({error}): it is left as it is.</source>
        <translation>无法读取 {path}（{error}）：文件保持原样。</translation>
    </message>
    <message>
        <source>{path} is not valid TOML ({error}): it is left as it is. Mend the file, then try again.</source>
        <translation>{path} 不是有效的 TOML（{error}）：文件保持原样。请先修好该文件，再重试。</translation>
    </message>
    <message>
        <source>{path} is not valid JSON ({error}): it is left as it is. Mend the file, then try again.</source>
        <translation>{path} 不是有效的 JSON（{error}）：文件保持原样。请先修好该文件，再重试。</translation>
    </message>
    <message>
        <source>{path} is not a JSON object: it is left as it is. Mend the file, then try again.</source>
        <translation>{path} 不是 JSON 对象：文件保持原样。请先修好该文件，再重试。</translation>
    </message>
    <message>
        <source>{path} is a link: nothing outside the tree is written.</source>
        <translation>{path} 是链接：不会写入目录树之外的任何内容。</translation>
    </message>
    <message>
        <source>{path} is a link: nothing outside the tree is read or written.</source>
        <translation>{path} 是链接：不会读写目录树之外的任何内容。</translation>
    </message>
    <message>
        <source>The tree has no {path}/ (removed since it was shown?).</source>
        <translation>目录树中没有 {path}/（显示之后被删除了？）。</translation>
    </message>
    <message>
        <source>The tree has no {who} any more (looked for {path}/).</source>
        <translation>目录树中已没有 {who}（查找的是 {path}/）。</translation>
    </message>
    <message>
        <source>{path} was changed since ({action} of {id}), by the plugin or by hand: not reverted, nothing was written.</source>
        <translation>{path} 在此之后已被插件或手动修改（{id} 的{action}）：未撤销，未写入任何内容。</translation>
    </message>
    <message>
        <source>{path} exists already: the memory cannot move there.</source>
        <translation>{path} 已存在：记忆无法移到那里。</translation>
    </message>
    <message>
        <source>{path} exists already: restoring would replace it.</source>
        <translation>{path} 已存在：恢复会覆盖它。</translation>
    </message>
    <message>
        <source>The archive holds no memory “{id}” of {who} (removed since it was shown?).</source>
        <translation>归档中没有 {who} 的记忆“{id}”（显示之后被删除了？）。</translation>
    </message>
    <message>
        <source>{who} has no memory “{id}” (removed since it was shown?).</source>
        <translation>{who} 没有记忆“{id}”（显示之后被删除了？）。</translation>
    </message>
    <message>
        <source>“{id}” is no memory id.</source>
        <translation>“{id}”不是记忆 ID。</translation>
    </message>
    <message>
        <source>{who} keeps no {folder}.</source>
        <translation>{who} 没有 {folder}。</translation>
    </message>
    <message>
        <source>{who} has no profile.</source>
        <translation>{who} 没有画像。</translation>
    </message>
    <message>
        <source>“{name}” is no profile field; the fields are: {fields}.</source>
        <translation>“{name}”不是画像字段；可用字段：{fields}。</translation>
    </message>
    <message>
        <source>{field} must be {expected}.</source>
        <translation>{field} 必须是{expected}。</translation>
    </message>
    <message>
        <source>profile.json&apos;s {name} is not {expected} (edited by hand?): it is left as it is. Mend the file, then try again.</source>
        <translation>profile.json 中的 {name} 不是{expected}（被手动编辑过？）：文件保持原样。请修正文件后再试。</translation>
    </message>
    <message>
        <source>The importance must be a whole number from 1 to 10.</source>
        <translation>重要度必须是 1 到 10 之间的整数。</translation>
    </message>
    <message>
        <source>The text must not be empty.</source>
        <translation>文本不能为空。</translation>
    </message>
    <message>
        <source>The text is longer than {limit} characters.</source>
        <translation>文本超过 {limit} 个字符。</translation>
    </message>
    <message>
        <source>The tags must be non-empty texts.</source>
        <translation>标签必须是非空文本。</translation>
    </message>
    <message>
        <source>add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>revert</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>re-index</source>
        <translation>重新索引</translation>
    </message>
    <message>
        <source>delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>profile edit</source>
        <translation>画像修改</translation>
    </message>
</context>
<context>
    <name>TreeWindow</name>
    <message>
        <source>KiraOS 3.x data — {folder}</source>
        <translation>KiraOS 3.x 数据 — {folder}</translation>
    </message>
    <message>
        <source>KiraOS plugin 3.x data (a tree of files). Edits are written as the plugin writes them, each file with its index row, so the running bot uses them on its next reply; every edit can be undone (Ctrl+Z) or reverted from the History tab. The plugin&apos;s own writes appear within a second; Reload (F5) reads files edited by hand.</source>
        <translation>KiraOS 插件 3.x 数据（文件树）。编辑按插件的方式写入，文件与其索引行一并更新，运行中的机器人在下一次回复时即会使用；每次编辑都可撤销（Ctrl+Z），或在“变更记录”页中还原。插件自己写入的内容一秒内显示；手动编辑过的文件请“重新读取”（F5）。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>重新读取(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Bot hosts get this memory from the API at {url} (/v1/context, MCP at {url}/mcp), with the token of `kiraos-desktop token`.</source>
        <translation>机器人宿主可通过 {url} 的 API 获取这份记忆（/v1/context，MCP 位于 {url}/mcp），令牌见 `kiraos-desktop token`。</translation>
    </message>
    <message>
        <source>The API is not serving this memory: {reason}</source>
        <translation>API 未提供这份记忆：{reason}</translation>
    </message>
</context>
<context>
    <name>UndoableWriter</name>
    <message>
        <source>Writing to the memory</source>
        <extracomment>The busy box&apos;s title and text while a write from the window waits for the database.</extracomment>
        <translation>正在写入记忆</translation>
    </message>
    <message>
        <source>Waiting for the database: another program is writing to it. Your change is written as soon as it is free.</source>
        <translation>正在等待数据库：另一个程序正在写入。数据库空闲后会立即写入你的修改。</translation>
    </message>
</context>
<context>
    <name>UserDetail</name>
    <message>
        <source>Export this user…</source>
        <translation>导出该用户…</translation>
    </message>
    <message>
        <source>Clear memory…</source>
        <translation>清空记忆…</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>画像</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>History</source>
        <translation>变更记录</translation>
    </message>
    <message>
        <source>No user selected</source>
        <translation>未选择用户</translation>
    </message>
    <message>
        <source>Pick a user in the list on the left.</source>
        <translation>请在左侧列表中选择一个用户。</translation>
    </message>
    <message>
        <source>Could not read this user&apos;s memory: {message}</source>
        <translation>无法读取该用户的记忆：{message}</translation>
    </message>
    <message>
        <source>No memory stored for this user.</source>
        <translation>该用户没有存储任何记忆。</translation>
    </message>
    <message>
        <source>{entries} · {events} · last activity {when}</source>
        <translation>{entries} · {events} · 最近活动 {when}</translation>
    </message>
    <message numerus="yes">
        <source>%n profile entries</source>
        <translation>
            <numerusform>%n 条画像条目</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n 条事件</numerusform>
        </translation>
    </message>
    <message>
        <source>Delete everything KiraOS remembers about {user}: {entries} and {events}?

The bot will no longer receive any memory for this user. You can undo this with Ctrl+Z while the window is open.</source>
        <translation>删除 KiraOS 关于 {user} 的全部记忆：{entries}和{events}？

机器人将不再收到该用户的任何记忆。窗口打开期间可按 Ctrl+Z 撤销。</translation>
    </message>
    <message>
        <source>Cleared {user}: {entries} and {events} deleted.</source>
        <translation>已清除 {user}：删除了{entries}和{events}。</translation>
    </message>
    <message>
        <source>Clear memory</source>
        <translation>清空记忆</translation>
    </message>
    <message>
        <source>Clear memory of {user}</source>
        <translation>清空 {user} 的记忆</translation>
    </message>
    <message>
        <source>Export {user}</source>
        <translation>导出 {user}</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Exported {user} to {path}</source>
        <translation>已将 {user} 导出到 {path}</translation>
    </message>
</context>
<context>
    <name>UserListModel</name>
    <message>
        <source>(no user: no &lt;context&gt;)</source>
        <extracomment>How many matching users the picker lists (search narrows it down).</extracomment>
        <translation>（不选用户：没有 &lt;context&gt;）</translation>
    </message>
    <message>
        <source>{0}: {1} profile entries, {2} events; last activity {3}</source>
        <translation>{0}：{1} 条画像，{2} 条事件；最近活动 {3}</translation>
    </message>
    <message>
        <source>never</source>
        <translation>永不</translation>
    </message>
</context>
<context>
    <name>UserPicker</name>
    <message>
        <source>Search users</source>
        <translation>搜索用户</translation>
    </message>
</context>
<context>
    <name>UsersModel</name>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Entries</source>
        <translation>条目</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Last activity</source>
        <translation>最近活动</translation>
    </message>
</context>
<context>
    <name>UsersPage</name>
    <message>
        <source>Search user id…  (Ctrl+F)</source>
        <translation>搜索用户 ID…  (Ctrl+F)</translation>
    </message>
    <message>
        <source>Also search in keys, values and events</source>
        <translation>同时搜索键、值和事件</translation>
    </message>
    <message>
        <source>Also lists users who have every word of the search in their keys, values or events (each word may be in a different one). Chinese is split into words (橘猫, 面试); each word matches the start of a word in any case (teach finds teacher); particles and punctuation (的, the, !) are left out. A single character, or a search of particles only, is looked for as written, anywhere (slower on a big database).</source>
        <translation>同时列出键、值或事件中包含搜索内容全部词语的用户（各个词语可以出现在不同的条目或事件中）。中文按词切分（如 橘猫、面试）；每个词与某个词的开头匹配，不区分大小写（teach 能找到 teacher）；助词和标点（的、the、!）不参与匹配。单个字符或只含助词的搜索按原文在任意位置查找（在大型数据库上较慢）。</translation>
    </message>
    <message>
        <source>New user…</source>
        <translation>新建用户…</translation>
    </message>
    <message>
        <source>Create a user&apos;s memory with a first profile entry (Ctrl+Shift+N)</source>
        <translation>为一个用户建立记忆，并写入第一条画像（Ctrl+Shift+N）</translation>
    </message>
    <message>
        <source>Find user</source>
        <translation>查找用户</translation>
    </message>
    <message>
        <source>New user {user}</source>
        <translation>新建用户 {user}</translation>
    </message>
    <message>
        <source>Created {user}.</source>
        <translation>已创建 {user}。</translation>
    </message>
    <message>
        <source>Search failed: {message}</source>
        <translation>搜索失败：{message}</translation>
    </message>
    <message>
        <source>Searching keys, values and events…</source>
        <translation>正在搜索键、值和事件…</translation>
    </message>
    <message numerus="yes">
        <source>%Ln users match “{text}”</source>
        <translation>
            <numerusform>%Ln 个用户匹配“{text}”</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln users</source>
        <translation>
            <numerusform>%Ln 个用户</numerusform>
        </translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>No user matches “{text}”.</source>
        <translation>没有用户匹配“{text}”。</translation>
    </message>
    <message>
        <source>Tick “Also search in keys, values and events” to look inside memories.</source>
        <translation>勾选“同时搜索键、值和事件”即可在记忆内容中查找。</translation>
    </message>
    <message>
        <source>No users yet.
Memory appears here as soon as the bot stores something (memory_update, or the API).
Help &gt; Guide (F1) explains how a bot connects.</source>
        <translation>还没有用户。
机器人一旦存储内容（memory_update 或 API），记忆就会显示在这里。
“帮助 &gt; 使用指南”（F1）介绍了机器人如何连接。</translation>
    </message>
</context>
<context>
    <name>Workbench</name>
    <message>
        <source>Sample call</source>
        <translation>示例调用</translation>
    </message>
    <message>
        <source>Memory of:</source>
        <translation>使用记忆：</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Slash command</source>
        <translation>斜杠命令</translation>
    </message>
    <message>
        <source>Problems ({0})</source>
        <translation>问题（{0}）</translation>
    </message>
</context>
</TS>
