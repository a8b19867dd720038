import Testing
@testable import InstantSearch

/// `Observer`: subscribers held weakly, `subscribePast` replays the last value,
/// `subscribeOnce` takes one, `cancelSubscription` ends one, delivery on another actor keeps
/// the order fired.
@MainActor
struct ObserverTests {
    final class Subscriber {
        var values: [Int] = []
    }

    @Test func subscribersGetValuesInOrderAndAreHeldWeakly() {
        let o = Observer<Int>()
        var a: Subscriber? = Subscriber()
        let b = Subscriber()
        o.subscribe(with: a!) { s, v in s.values.append(v) }
        o.subscribe(with: b) { s, v in s.values.append(v * 10) }
        o.fire(1)
        o.fire(2)
        #expect(a?.values == [1, 2])
        #expect(b.values == [10, 20])
        a = nil
        o.fire(3)
        #expect(o.subscriberCount == 1, "a gone subscriber's subscription ends")
        #expect(b.values == [10, 20, 30])
    }

    @Test func pastOnceAndCancel() {
        let o = Observer<Int>()
        let s = Subscriber()
        o.fire(7)
        o.subscribePast(with: s) { s, v in s.values.append(v) }
        #expect(s.values == [7])
        let once = Subscriber()
        o.subscribeOnce(with: once) { s, v in s.values.append(v) }
        o.fire(8)
        o.fire(9)
        #expect(once.values == [8])
        o.cancelSubscription(for: s)
        o.fire(10)
        #expect(s.values == [7, 8, 9])
        #expect(o.latestValue == 10)
    }

    actor Recorder {
        var values: [Int] = []
        func add(_ v: Int) { values.append(v) }
    }

    final class Token: Sendable {}

    @Test func deliveryOnAnotherActorKeepsTheOrder() async {
        let o = Observer<Int>()
        let recorder = Recorder()
        let token = Token()
        o.subscribe(with: token, on: recorder) { r, _, v in r.add(v) }
        for i in 0..<200 { o.fire(i) }
        for _ in 0..<1000 {
            if await recorder.values.count == 200 { break }
            await Task.yield()
        }
        #expect(await recorder.values == Array(0..<200))
        _ = token
    }

    @Test func aCallbackMaySubscribeAnother() {
        let o = Observer<Int>()
        let first = Subscriber()
        let second = Subscriber()
        o.subscribeOnce(with: first) { s, v in
            s.values.append(v)
            o.subscribe(with: second) { s2, v2 in s2.values.append(v2) }
        }
        o.fire(1)
        o.fire(2)
        #expect(first.values == [1])
        #expect(second.values == [2])
    }

    @Test func aCallbackThatCancelsAnotherAndSubscribesOneMore() {
        let o = Observer<Int>()
        let a = Subscriber()
        let b = Subscriber()
        let c = Subscriber()
        let d = Subscriber()
        o.subscribeOnce(with: a) { s, v in
            s.values.append(v)
            o.cancelSubscription(for: b)
            o.subscribe(with: d) { s, v in s.values.append(v) }
        }
        o.subscribe(with: b) { s, v in s.values.append(v) }
        o.subscribe(with: c) { s, v in s.values.append(v) }
        o.fire(1)
        o.fire(2)
        #expect(a.values == [1] && b.values.isEmpty && c.values == [1, 2] && d.values == [2])
        #expect(o.subscriberCount == 2)
    }
}
