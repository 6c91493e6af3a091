<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
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
        <source>%n new events</source>
        <translation>
            <numerusform>%n new event</numerusform>
            <numerusform>%n new events</numerusform>
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
</TS>
