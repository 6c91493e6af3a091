<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>AddProfileDialog</name>
    <message numerus="yes">
        <source>This user already has %n profile entries, the limit. Delete an entry, or raise “Profile entries per user” in Settings.</source>
        <translation>
            <numerusform>This user already has %n profile entry, the limit. Delete it, or raise “Profile entries per user” in Settings.</numerusform>
            <numerusform>This user already has %n profile entries, the limit. Delete an entry, or raise “Profile entries per user” in Settings.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChangeFeedModel</name>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… and %n more</numerusform>
            <numerusform>… and %n more</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ContextTab</name>
    <message numerus="yes">
        <source>%n characters (max_context_chars = 0: no limit)</source>
        <translation>
            <numerusform>%n character (max_context_chars = 0: no limit)</numerusform>
            <numerusform>%n characters (max_context_chars = 0: no limit)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n other events are not in the block: it carries {max}, those about the message first, then the newest (“Events in context” in Settings, max_events_per_user).</source>
        <translation>
            <numerusform>%n other event is not in the block: it carries {max}, those about the message first, then the newest (“Events in context” in Settings, max_events_per_user).</numerusform>
            <numerusform>%n other events are not in the block: it carries {max}, those about the message first, then the newest (“Events in context” in Settings, max_events_per_user).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n older events are not in the block: it carries the newest {max} only (“Events in context” in Settings, max_events_per_user).</source>
        <translation>
            <numerusform>%n older event is not in the block: it carries the newest {max} only (“Events in context” in Settings, max_events_per_user).</numerusform>
            <numerusform>%n older events are not in the block: it carries the newest {max} only (“Events in context” in Settings, max_events_per_user).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Left out to stay within the budget (%n items):</source>
        <translation>
            <numerusform>Left out to stay within the budget (%n item):</numerusform>
            <numerusform>Left out to stay within the budget (%n items):</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EntitiesPage</name>
    <message numerus="yes">
        <source>%n entities</source>
        <translation>
            <numerusform>%n entity</numerusform>
            <numerusform>%n entities</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EntityDetailView</name>
    <message numerus="yes">
        <source>Problems (%n)</source>
        <translation>
            <numerusform>Problems (%n)</numerusform>
            <numerusform>Problems (%n)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n memory file(s) say something other than the bot&apos;s index (edited by hand, or never indexed): the running bot recalls what the index says until they are re-indexed.</source>
        <translation>
            <numerusform>%n memory file says something other than the bot&apos;s index (edited by hand, or never indexed): the running bot recalls what the index says until it is re-indexed.</numerusform>
            <numerusform>%n memory files say something other than the bot&apos;s index (edited by hand, or never indexed): the running bot recalls what the index says until they are re-indexed.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EventsTab</name>
    <message numerus="yes">
        <source>Delete %n events</source>
        <translation>
            <numerusform>Delete %n event</numerusform>
            <numerusform>Delete %n events</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n events. Undo with Ctrl+Z.</source>
        <translation>
            <numerusform>Deleted %n event. Undo with Ctrl+Z.</numerusform>
            <numerusform>Deleted %n events. Undo with Ctrl+Z.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n event</numerusform>
            <numerusform>%n events</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FileActions</name>
    <message numerus="yes">
        <source>Remove %n expired entries</source>
        <translation>
            <numerusform>Remove %n expired entry</numerusform>
            <numerusform>Remove %n expired entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed %n expired entries.</source>
        <translation>
            <numerusform>Removed %n expired entry.</numerusform>
            <numerusform>Removed %n expired entries.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FileTasks</name>
    <message numerus="yes">
        <source>Exported %n users to {path}.</source>
        <translation>
            <numerusform>Exported %n user to {path}.</numerusform>
            <numerusform>Exported %n users to {path}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n users</source>
        <translation>
            <numerusform>%n user</numerusform>
            <numerusform>%n users</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n profile entries</source>
        <translation>
            <numerusform>%n profile entry</numerusform>
            <numerusform>%n profile entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n event</numerusform>
            <numerusform>%n events</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n of these users already have memory: entries with the same key are replaced, identical events are skipped.</source>
        <translation>
            <numerusform>%n of these users already has memory: entries with the same key are replaced, identical events are skipped.</numerusform>
            <numerusform>%n of these users already have memory: entries with the same key are replaced, identical events are skipped.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n event tags are not kept: this memory has no event tags (the data of the KiraOS plugin 2.x has them).</source>
        <translation>
            <numerusform>%n event tag is not kept: this memory has no event tags (the data of the KiraOS plugin 2.x has them).</numerusform>
            <numerusform>%n event tags are not kept: this memory has no event tags (the data of the KiraOS plugin 2.x has them).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n new events</source>
        <translation>
            <numerusform>%n new event</numerusform>
            <numerusform>%n new events</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>History</name>
    <message numerus="yes">
        <source>%n oldest events</source>
        <translation>
            <numerusform>%n oldest event</numerusform>
            <numerusform>%n oldest events</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n entry</numerusform>
            <numerusform>%n entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n event</numerusform>
            <numerusform>%n events</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n expired entries</source>
        <translation>
            <numerusform>%n expired entry</numerusform>
            <numerusform>%n expired entries</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HistoryTab</name>
    <message numerus="yes">
        <source>%n+ changes</source>
        <translation>
            <numerusform>%n+ changes</numerusform>
            <numerusform>%n+ changes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changes</source>
        <translation>
            <numerusform>%n change</numerusform>
            <numerusform>%n changes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProblemsPanel</name>
    <message numerus="yes">
        <source>%n errors</source>
        <translation>
            <numerusform>%n error</numerusform>
            <numerusform>%n errors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warnings</source>
        <translation>
            <numerusform>%n warning</numerusform>
            <numerusform>%n warnings</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProfileTab</name>
    <message numerus="yes">
        <source>Delete %n entries</source>
        <translation>
            <numerusform>Delete %n entry</numerusform>
            <numerusform>Delete %n entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n entries. Undo with Ctrl+Z.</source>
        <translation>
            <numerusform>Deleted %n entry. Undo with Ctrl+Z.</numerusform>
            <numerusform>Deleted %n entries. Undo with Ctrl+Z.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Purged %n expired entries.</source>
        <translation>
            <numerusform>Purged %n expired entry.</numerusform>
            <numerusform>Purged %n expired entries.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n entry</numerusform>
            <numerusform>%n entries</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Prompter</name>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… and %n more</numerusform>
            <numerusform>… and %n more</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SkillsPage</name>
    <message numerus="yes">
        <source>{0} has %n problem(s) to fix before hosts can call it (see Problems), such as: {1}</source>
        <translation>
            <numerusform>{0} has %n problem to fix before hosts can call it (see Problems): {1}</numerusform>
            <numerusform>{0} has %n problems to fix before hosts can call it (see Problems), such as: {1}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UserDetail</name>
    <message numerus="yes">
        <source>%n profile entries</source>
        <translation>
            <numerusform>%n profile entry</numerusform>
            <numerusform>%n profile entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n events</source>
        <translation>
            <numerusform>%n event</numerusform>
            <numerusform>%n events</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>UsersPage</name>
    <message numerus="yes">
        <source>%Ln users match “{text}”</source>
        <translation>
            <numerusform>%Ln user matches “{text}”</numerusform>
            <numerusform>%Ln users match “{text}”</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln users</source>
        <translation>
            <numerusform>%Ln user</numerusform>
            <numerusform>%Ln users</numerusform>
        </translation>
    </message>
</context>
</TS>
