#include "pml/match.h"

#include <gtest/gtest.h>

namespace gpurun::pml {
namespace {

void set(core::Request& r, int source, int tag) {
  r.peer = source;
  r.tag = tag;
}

TEST(Match, WildcardsMatchAnything) {
  EXPECT_TRUE(matches(kAnySource, kAnyTag, 3, 9));
  EXPECT_TRUE(matches(3, kAnyTag, 3, 9));
  EXPECT_TRUE(matches(kAnySource, 9, 3, 9));
  EXPECT_FALSE(matches(2, kAnyTag, 3, 9));
  EXPECT_FALSE(matches(kAnySource, 8, 3, 9));
}

TEST(Match, PostedReceivesMatchInPostOrder) {
  MatchQueues q;
  core::Request a, b, c;
  set(a, kAnySource, 5);
  set(b, 1, 5);
  set(c, 1, kAnyTag);
  q.post(&a);
  q.post(&b);
  q.post(&c);
  EXPECT_EQ(q.take_posted(1, 7), &c);  // only c takes tag 7
  EXPECT_EQ(q.take_posted(1, 5), &a);  // a was posted before b
  EXPECT_EQ(q.take_posted(2, 5), nullptr);
  EXPECT_EQ(q.take_posted(1, 5), &b);
  EXPECT_TRUE(q.idle());
}

TEST(Match, UnexpectedMessagesMatchInArrivalOrder) {
  MatchQueues q;
  Unexpected m[4];
  int sources[] = {0, 1, 0, 1}, tags[] = {7, 7, 8, 7};
  for (int i = 0; i < 4; ++i) {
    m[i].source = sources[i];
    m[i].tag = tags[i];
    q.hold(&m[i]);
  }
  EXPECT_EQ(q.find_unexpected(1, 7, false), &m[1]);  // a probe leaves it queued
  EXPECT_EQ(q.find_unexpected(1, 7, true), &m[1]);
  EXPECT_EQ(q.find_unexpected(1, 7, true), &m[3]);
  EXPECT_EQ(q.find_unexpected(kAnySource, kAnyTag, true), &m[0]);
  EXPECT_EQ(q.find_unexpected(kAnySource, 7, true), nullptr);
  EXPECT_EQ(q.find_unexpected(0, 8, true), &m[2]);
  EXPECT_TRUE(q.idle());
}

TEST(Match, UnpostRemovesOnlyPostedRequests) {
  MatchQueues q;
  core::Request a, b;
  set(a, 0, 1);
  set(b, 0, 2);
  q.post(&a);
  EXPECT_FALSE(q.unpost(&b));
  EXPECT_TRUE(q.unpost(&a));
  EXPECT_EQ(q.take_posted(0, 1), nullptr);
}

}  // namespace
}  // namespace gpurun::pml
