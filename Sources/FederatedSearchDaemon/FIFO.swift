import FederatedSearchServer
/// A first-in, first-out queue with O(1) append and pop: an array read from a moving head,
/// compacted once the head passes half of it.
struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func append(_ element: Element) { items.append(element) }

    /// Removes and returns the oldest element, if any.
    mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head == items.count {
            removeAll()
        } else if head >= 1024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    /// The elements that satisfy `keep`, oldest first.
    func filter(_ keep: (Element) -> Bool) -> FIFO {
        var kept = FIFO()
        for element in items[head...] where keep(element) { kept.append(element) }
        return kept
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: items.count <= 1024)
        head = 0
    }
}
