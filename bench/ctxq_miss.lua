-- GET /v1/context with a message that is new on every request, as a bot's users write them: the
-- words of a few topics combined differently each time plus the request's number, so no block made
-- for an earlier message (and no cached segmentation) is ever reused. The numbers start from the
-- clock's seconds times 10^5 (LuaJIT still prints such numbers in full), so a later wrk run (a second
-- later at least, under 100,000 requests a run) repeats none of them. The baseline ignores the query.
counter = (os.time() % 100000) * 100000
local words = {"%E6%97%85%E8%A1%8C", "%E7%8C%AB", "%E9%9D%A2%E8%AF%95", "exam", "%E5%90%89%E4%BB%96",  -- 旅行 猫 面试 exam 吉他
               "%E9%A9%AC%E6%8B%89%E6%9D%BE", "%E5%B7%A5%E4%BD%9C", "%E6%BC%94%E5%94%B1%E4%BC%9A",      -- 马拉松 工作 演唱会
               "%E6%84%9F%E5%86%92", "%E6%90%AC%E5%AE%B6", "%E8%AF%BB%E4%B9%A6", "%E5%8D%87%E8%81%8C",   -- 感冒 搬家 读书 升职
               "%E5%91%A8%E6%9C%AB", "weekend", "%E5%A4%A9%E6%B0%94", "concert"}                        -- 周末 weekend 天气 concert
request = function()
  counter = counter + 1
  local a = words[counter % #words + 1]
  local b = words[(counter * 7) % #words + 1]
  return wrk.format("GET", "/v1/context?user_id=qq_" .. (100000 + (counter * 7919) % 10000) ..
                    "&query=" .. a .. "%E6%80%8E%E4%B9%88%E6%A0%B7%E4%BA%86%20" .. b .. "%20" .. counter)  -- 怎么样了
end
