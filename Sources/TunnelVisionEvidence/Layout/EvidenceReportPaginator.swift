import Foundation

/// Places slices on pages of one height. A page breaks where the next slice does not fit,
/// or earlier when slices that keep together would otherwise be parted — unless together they
/// are taller than a page, in which case they are parted where they must be.
struct EvidenceReportPaginator {
    let pageHeight: CGFloat
    let slices: [EvidenceReportSlice]
    private let headers: [Int: [EvidenceReportSlice]]

    init(pageHeight: CGFloat, slices: [EvidenceReportSlice]) {
        self.pageHeight = pageHeight
        self.slices = slices
        headers = Dictionary(grouping: slices.filter { $0.headerOfTable != nil }) { $0.headerOfTable ?? -1 }
    }

    /// The marks of each page, relative to the top of the body.
    func pages() -> [[EvidenceReportMark]] {
        var pages: [[EvidenceReportMark]] = []
        var page: [EvidenceReportMark] = []
        var y: CGFloat = 0
        var placedOnPage = false
        var lastPlaced: EvidenceReportSlice?
        var keptUntil = -1

        func breakPage() {
            pages.append(page)
            page = []
            y = 0
            placedOnPage = false
        }
        func place(_ slice: EvidenceReportSlice) {
            let space = placedOnPage ? slice.spaceBefore : 0
            page += slice.marks.map { $0.shifted(by: y + space) }
            y += space + slice.height
            placedOnPage = true
            lastPlaced = slice
        }

        for (index, slice) in slices.enumerated() {
            if placedOnPage, index > keptUntil {
                let (height, end) = keptRun(from: index)
                if height <= pageHeight {
                    if y + slice.spaceBefore + height > pageHeight { breakPage() }
                    keptUntil = end
                } else {
                    // Taller than a page, it is parted where it must be; but not right after a
                    // heading or a table's header, and its rest is not kept as a run of its own.
                    let (opening, openingEnd) = self.opening(from: index, to: end)
                    if y + slice.spaceBefore + opening > pageHeight { breakPage() }
                    keptUntil = openingEnd
                }
            }
            if placedOnPage, y + slice.spaceBefore + slice.height > pageHeight { breakPage() }
            if !placedOnPage, let table = slice.rowOfTable, lastPlaced?.headerOfTable != table,
               let header = headers[table] {
                header.forEach(place)
            }
            place(slice)
        }
        if placedOnPage || pages.isEmpty { pages.append(page) }
        return pages
    }

    /// The height of a run's opening that a page never ends on, and the index of its last slice:
    /// the slices before its first table row or its third slice, whichever comes first, and the
    /// one after them.
    private func opening(from start: Int, to end: Int) -> (CGFloat, Int) {
        var last = start
        while last < end, last - start < 2, slices[last].rowOfTable == nil { last += 1 }
        return (slices[start...last].dropFirst().reduce(slices[start].height) { $0 + $1.spaceBefore + $1.height }, last)
    }

    /// The height of the slices that keep together from `start`, and the index of the last.
    private func keptRun(from start: Int) -> (CGFloat, Int) {
        var height = slices[start].height
        var end = start
        while slices[end].keepsWithNext, end + 1 < slices.count, height <= pageHeight {
            end += 1
            height += slices[end].spaceBefore + slices[end].height
        }
        return (height, end)
    }
}
