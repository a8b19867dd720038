/// An event of an interactor or a searcher (`onResults`, `onQueryChanged`, ...), delivered to
/// its subscribers in the order it fired.
///
/// Subscribers are held weakly: a subscription ends by itself when its subscriber is gone, or
/// with ``cancelSubscription(for:)``. Like the rest of the library it lives on the main actor,
/// where UI state lives; ``subscribe(with:on:callback:)`` delivers on another actor instead.
@MainActor
public final class Observer<Value: Sendable> {
    private struct Subscription {
        /// Unique to this subscription, so a delivery can drop it whatever happened meanwhile.
        let id: Int
        let key: ObjectIdentifier
        /// Delivers a value; false once the subscriber is gone (the subscription is dropped).
        let deliver: (Value) -> Bool
        let once: Bool
    }

    private var subscriptions: [Subscription] = []
    private var nextID = 0
    /// The last value fired, replayed by ``subscribePast(with:callback:)``.
    public private(set) var latestValue: Value?

    public init() {}

    /// Calls `callback` with each value fired from now on, while `subscriber` lives.
    public func subscribe<Subscriber: AnyObject>(
        with subscriber: Subscriber, callback: @escaping @MainActor (Subscriber, Value) -> Void
    ) {
        add(subscriber, once: false, callback)
    }

    /// As ``subscribe(with:callback:)``, and first with the last value fired, if any.
    public func subscribePast<Subscriber: AnyObject>(
        with subscriber: Subscriber, callback: @escaping @MainActor (Subscriber, Value) -> Void
    ) {
        add(subscriber, once: false, callback)
        if let latestValue { callback(subscriber, latestValue) }
    }

    /// Calls `callback` with the next value fired only.
    public func subscribeOnce<Subscriber: AnyObject>(
        with subscriber: Subscriber, callback: @escaping @MainActor (Subscriber, Value) -> Void
    ) {
        add(subscriber, once: true, callback)
    }

    /// Delivers each value fired from now on to `callback` on `actor`, in the order fired
    /// (one queue per subscription), while `subscriber` lives.
    public func subscribe<Subscriber: AnyObject & Sendable, A: Actor>(
        with subscriber: Subscriber, on actor: A,
        callback: @escaping @Sendable (isolated A, Subscriber, Value) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let box = SendableWeakBox(subscriber)
        Task { [box] in
            for await value in stream {
                guard let s = box.object else { return }
                await deliverValue(value, to: s, on: actor, callback)
            }
        }
        let key = ObjectIdentifier(subscriber)
        nextID += 1
        subscriptions.append(
            Subscription(
                id: nextID, key: key,
                deliver: { [box] value in
                    guard box.object != nil else {
                        continuation.finish()
                        return false
                    }
                    continuation.yield(value)
                    return true
                }, once: false))
    }

    /// Ends every subscription of `subscriber`.
    public func cancelSubscription(for subscriber: AnyObject) {
        let key = ObjectIdentifier(subscriber)
        subscriptions.removeAll { $0.key == key }
    }

    /// Ends every subscription.
    public func cancelAllSubscriptions() { subscriptions.removeAll() }

    /// The number of live subscriptions.
    public var subscriberCount: Int { subscriptions.count }

    /// Delivers `value` to every subscriber, in the order they subscribed. A subscription
    /// made by a callback gets the next value, not this one; one cancelled by a callback gets
    /// nothing more, this value included.
    public func fire(_ value: Value) {
        latestValue = value
        for s in subscriptions {
            // Still subscribed? (An earlier callback may have cancelled it, or a nested fire
            // delivered to a once-subscription already.)
            guard subscriptions.contains(where: { $0.id == s.id }) else { continue }
            if s.once { subscriptions.removeAll { $0.id == s.id } }
            if !s.deliver(value) { subscriptions.removeAll { $0.id == s.id } }
        }
    }

    private func add<Subscriber: AnyObject>(
        _ subscriber: Subscriber, once: Bool, _ callback: @escaping @MainActor (Subscriber, Value) -> Void
    ) {
        let box = WeakBox(subscriber)
        nextID += 1
        subscriptions.append(
            Subscription(
                id: nextID, key: ObjectIdentifier(subscriber),
                deliver: { value in
                    guard let s = box.object else { return false }
                    callback(s, value)
                    return true
                }, once: once))
    }
}

/// A weak reference, so a subscription never keeps its subscriber alive.
final class WeakBox<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

/// A weak reference to a `Sendable` subscriber that may cross to another actor (`weak let`:
/// it never changes but to nil, so the box is `Sendable`).
final class SendableWeakBox<Object: AnyObject & Sendable>: Sendable {
    weak let object: Object?
    init(_ object: Object) { self.object = object }
}

/// Runs `callback` on `actor` (the hop of ``Observer/subscribe(with:on:callback:)``).
private func deliverValue<Subscriber, Value, A: Actor>(
    _ value: Value, to subscriber: Subscriber, on actor: isolated A,
    _ callback: @Sendable (isolated A, Subscriber, Value) -> Void
) {
    callback(actor, subscriber, value)
}
